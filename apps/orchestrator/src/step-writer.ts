import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { jobId, NewRunEvent, RunEventEnvelope, type ReadOpRequest, type TestsOpRequest } from '@roundtable/contracts';
import { addStatement, runStatement, StatementBatch, type RunEntity, type Statement } from '@roundtable/persistence';
import { checkRunEvents, outboxInsert, outboxJob, OutboxJob, OutboxRow, runEventsInsert } from '@roundtable/events';
import type { BuildRunState, Command, DomainRecord, PanelAgentCallCommand, StepResult } from '@roundtable/workflow';
import {
  type DecisionRow,
  INSERT_AGENT_CALL,
  INSERT_CRITIQUE,
  INSERT_DECISIONS,
  INSERT_IMPLEMENTATION,
  INSERT_OPEN_QUESTION,
  INSERT_PROPOSAL,
  INSERT_READ_OP,
  INSERT_SYNTHESIS,
  INSERT_WORKSPACE_OP,
  UPDATE_IMPLEMENTATION_STATUS,
  UPDATE_PROPOSAL_STATUS,
  UPDATE_RUN_AFTER_STEP,
} from './sql/step-writes.sql';

const TERMINAL = new Set(['done', 'halted', 'needs_input', 'cancelled', 'failed']);

export interface WrittenStep {
  /** The outbox rows written, handed to OutboxDispatcher.dispatchRows after the commit. */
  outbox: OutboxRow[];
  events: RunEventEnvelope[];
  status: string;
}

const idOf = (runId: string, label: string | null | undefined) => (label ? `${runId}-${label}` : null);

/**
 * Writes everything one decide() returned, inside the step's transaction: the run's new
 * scalar state, domain rows, decisions, events, queued agent calls with their budget
 * reservations, workspace operations, and the outbox rows that will enqueue the jobs.
 * Inserts use deterministic ids with ON CONFLICT DO NOTHING, so a replayed step adds nothing.
 *
 * Plain SQL, one statement per kind of row (multi-row where a step writes several): this runs
 * on every step, and TypeORM's query building cost more CPU than the statements themselves.
 */
export async function writeStep(
  em: EntityManager,
  run: RunEntity,
  result: StepResult,
  extraEvents: NewRunEvent[] = [],
  opts: { commit?: boolean } = {},
): Promise<WrittenStep> {
  const runId = run.id;
  const s = result.state;
  const becameRunning = run.status === 'queued' && s.status === 'running';
  const becameTerminal = !TERMINAL.has(run.status) && TERMINAL.has(s.status);
  const { call: callSeq, ...labelCounters } = s.counters;
  const newEvents = [...result.events, ...extraEvents];
  checkRunEvents(newEvents);

  const writes = StatementBatch.of(em);
  const runUpdate = addStatement(writes, UPDATE_RUN_AFTER_STEP, runId, {
    status: s.status,
    stage: s.stage,
    round: s.round,
    fixRound: s.fixRound,
    criteria: s.criteria,
    unresolved: s.unresolved,
    haltReason: s.haltReason,
    // decide() hands back the loaded config object unless a resume raised caps: only then is it rewritten.
    config: s.config !== (run.config as unknown) ? s.config : undefined,
    workspacePath: s.workspace.path,
    labelCounters,
    callSeq: callSeq ?? run.callSeq,
    verdict: result.verdict ?? null,
    confidence: result.confidence,
    startedAt: becameRunning ? new Date() : null,
    finishedAt: becameTerminal ? new Date() : null,
    events: newEvents.length,
  });
  for (const r of result.records) writeRecord(writes, runId, r);
  if (result.decisions.length) addStatement(writes, INSERT_DECISIONS, runId, result.decisions);
  const checkRunUpdate = (results: { rowCount: number }[]) => {
    if (results[runUpdate].rowCount !== 1) throw new UnrecoverableError(`run ${runId} does not exist`);
  };

  const jobs: OutboxJob[] = [];
  let seq = run.callSeq;
  for (const c of result.commands) jobs.push(await writeCommand(em, s, c, () => ++seq, writes));

  const events = runEventsInsert(runId, run.eventSeq, newEvents);
  if (newEvents.length) writes.add(events.sql, events.params);
  const outbox = outboxInsert(jobs);
  const outboxAt = jobs.length ? writes.add(outbox.sql, outbox.params) : -1;
  // One round trip for the rest of the step, with the COMMIT when the caller hands it over.
  const results = await writes.flush(opts.commit ? { after: 'COMMIT' } : {});
  checkRunUpdate(results);
  return { outbox: outboxAt >= 0 ? outbox.rowsOf(results[outboxAt].rows as { id: unknown }[]) : [], events: events.envelopes, status: s.status };
}

/** A step's decisions in one INSERT. */
export async function insertDecisions(em: EntityManager, runId: string, decisions: readonly DecisionRow[]): Promise<void> {
  if (decisions.length) await runStatement(em, INSERT_DECISIONS, runId, decisions);
}

/** Queues the statement that writes one domain record (sql/step-writes.sql.ts). */
function writeRecord(batch: StatementBatch, runId: string, r: DomainRecord): void {
  switch (r.kind) {
    case 'proposal':
      addStatement(batch, INSERT_PROPOSAL, runId, r.record);
      return;
    case 'proposal_status':
      addStatement(batch, UPDATE_PROPOSAL_STATUS, runId, r.label, r.status);
      return;
    case 'critique':
      addStatement(batch, INSERT_CRITIQUE, runId, r.record);
      return;
    case 'implementation':
      addStatement(batch, INSERT_IMPLEMENTATION, runId, r.record);
      return;
    case 'implementation_status':
      addStatement(batch, UPDATE_IMPLEMENTATION_STATUS, runId, r.label, r.status, r.applyError);
      return;
    case 'synthesis':
      addStatement(batch, INSERT_SYNTHESIS, runId, r.record);
      return;
    case 'open_question':
      addStatement(batch, INSERT_OPEN_QUESTION, runId, r.role, r.question);
      return;
  }
}

/**
 * Also writes the panel's agent calls: the same audit row, reservation and outbox job for any workflow.
 * With a batch, each case's statement is queued there (after the step's records, which some of them
 * reference) instead of run at once: the build step sends all its writes in one round trip.
 */
export async function writeCommand(
  em: EntityManager,
  s: Pick<BuildRunState, 'runId'>,
  c: Command | PanelAgentCallCommand,
  nextSeq: () => number,
  batch?: StatementBatch,
): Promise<OutboxJob> {
  const runId = s.runId;
  const exec = async <A extends unknown[]>(s: Statement<A, never>, ...args: A): Promise<void> => {
    if (batch) addStatement(batch, s, ...args);
    else await runStatement(em, s, ...args);
  };
  switch (c.kind) {
    case 'agent_call': {
      await exec(INSERT_AGENT_CALL, runId, nextSeq(), c);
      // A transient retry goes out delayed by its backoff (the engine's retries.ts decided it).
      return outboxJob('agent.call', { runId, callId: c.callId }, { runId, jobId: jobId(c.callId, 'call'), provider: c.provider, delayMs: c.delayMs });
    }
    case 'workspace.prepare':
    case 'workspace.apply':
    case 'tests.run': {
      const kind = c.kind === 'workspace.prepare' ? 'prepare' : c.kind === 'workspace.apply' ? 'apply' : 'tests';
      const implementationId = c.kind === 'workspace.prepare' ? null : idOf(runId, c.implementationLabel);
      const result = c.kind === 'tests.run' ? ({ command: c.command, timeoutS: c.timeoutS, testLabel: c.testLabel } satisfies TestsOpRequest) : null;
      await exec(INSERT_WORKSPACE_OP, runId, c.opId, kind, implementationId, result);
      const job = { runId, jobId: jobId(c.opId, kind) };
      return c.kind === 'workspace.prepare'
        ? outboxJob(c.kind, { runId, opId: c.opId }, job)
        : outboxJob(c.kind, { runId, opId: c.opId, implementationId: implementationId! }, job);
    }
    case 'workspace.read': {
      // The request rides on the op row (ReadOpRequest); the test-runner adds the files it read to the same result.
      const request = {
        label: c.label,
        role: c.role,
        call_id: c.callId,
        paths: c.paths,
        reason: c.reason,
        refused: c.refused,
        max_bytes_per_file: c.maxBytesPerFile,
      } satisfies ReadOpRequest;
      await exec(INSERT_READ_OP, runId, c.opId, request);
      return outboxJob('workspace.read', { runId, opId: c.opId }, { runId, jobId: jobId(c.opId, 'read') });
    }
  }
}
