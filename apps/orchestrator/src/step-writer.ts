import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { CALL_OUTCOME_EVENT_TYPES, callRecordHash, forkCallKey, jobId, RunEventEnvelope, TERMINAL_RUN_STATUSES, type ForkOrigin, type NewRunEvent, type RecordSigner, type MergeOpRequest, type ReadOpRequest, type TestsOpRequest, type ToolOpRequest } from '@roundtable/contracts';
import { addStatement, StatementBatch, type RunEntity, type Statement } from '@roundtable/persistence';
import { checkRunEvents, runEventsInsert } from '@roundtable/events';
import { outboxInsert, outboxJob, OutboxJob, OutboxRow } from '@roundtable/service';
import type { Command, ExperimentCommand, PanelAgentCallCommand } from '@roundtable/workflow';
import type { DecidedStep } from './workflows/workflow-registry';
import type { RunChainHead } from './workflows/workflow-definition';
import type { SettledCallRow } from './sql/settle-finished-call.sql';
import { INSERT_AGENT_CALL, INSERT_COPIED_AGENT_CALL, INSERT_DECISIONS, INSERT_DRAFTED_EXPERIMENT, INSERT_EXPERIMENT_OP, INSERT_READ_OP, INSERT_WORKSPACE_OP, UPDATE_RUN_GATE } from './sql/step-writes.sql';

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_RUN_STATUSES);

export interface WrittenStep {
  /** The outbox rows written, handed to OutboxDispatcher.dispatchRows after the commit. */
  outbox: OutboxRow[];
  events: RunEventEnvelope[];
  status: string;
}

/** Any workflow's command: the build's, an agent call of the panel's, the experiment's method run. */
export type AnyCommand = Command | PanelAgentCallCommand | ExperimentCommand;

const idOf = (runId: string, label: string | null | undefined) => (label ? `${runId}-${label}` : null);

/** Set when the run starts in this step (queued → running); null leaves started_at as it is. */
export function startedNow(before: string, after: string): Date | null {
  return before === 'queued' && after === 'running' ? new Date() : null;
}

/** Set when the run ends in this step; null leaves finished_at as it is. */
export function finishedNow(before: string, after: string): Date | null {
  return !TERMINAL.has(before) && TERMINAL.has(after) ? new Date() : null;
}

/**
 * The run-row columns every workflow's step sets alike (its UPDATE adds the workflow's own):
 * status, stage, halt reason, the config only when a resume or appeal raised caps (decide hands
 * back the loaded object otherwise), the label counters and call sequence, verdict, the start
 * and end times, and the events that move event_seq.
 */
export function commonRunColumns<E>(
  run: Pick<RunEntity, 'status' | 'config' | 'callSeq'>,
  s: { status: string; stage: string; haltReason: string | null; config: unknown; counters: Record<string, number> },
  result: { verdict?: string | null; confidence: number | null },
  events: E,
  chain: RunChainHead,
) {
  const { call: callSeq, ...labelCounters } = s.counters;
  return {
    status: s.status,
    stage: s.stage,
    haltReason: s.haltReason,
    config: s.config !== (run.config as unknown) ? s.config : undefined,
    labelCounters,
    callSeq: callSeq ?? run.callSeq,
    verdict: result.verdict ?? null,
    confidence: result.confidence,
    startedAt: startedNow(run.status, s.status),
    finishedAt: finishedNow(run.status, s.status),
    events,
    headHash: chain.head,
    signature: chain.signature,
  };
}

/**
 * The one step writer, for every workflow: writes everything one decide() returned, inside
 * the step's transaction, in one batch — the workflow's own writes first (the run row's
 * UPDATE, which moves event_seq past the step's events, and its domain rows), then decisions,
 * queued agent calls with their budget reservations, workspace operations, events numbered
 * from the locked row's event_seq, and the outbox rows that will enqueue the jobs.
 * Inserts use deterministic ids with ON CONFLICT DO NOTHING, so a replayed step adds nothing.
 *
 * Plain SQL, one statement per kind of row (multi-row where a step writes several): this runs
 * on every step, and TypeORM's query building cost more CPU than the statements themselves.
 */
export interface WriteStepOptions {
  /** Send the COMMIT with the last batch. */
  commit?: boolean;
  /** The call agent.done settled with the lock: its record hash goes into the event that records it. */
  settled?: Pick<SettledCallRow, RecordedCallColumn> | null;
  /** The operator's key (AUDIT_SIGNING_KEY): the step that ends the run signs its new head hash. */
  signer?: RecordSigner | null;
}

type RecordedCallColumn = 'id' | 'status' | 'messages' | 'response_text' | 'parsed' | 'valid' | 'error' | 'error_code' | 'input_tokens' | 'output_tokens' | 'cost_usd';

/**
 * The settled call's record hash into the event that records its outcome (issue 26), so the
 * chain covers the call's messages, reply, usage and cost; the events are otherwise as decided.
 */
export function withCallRecordHash(events: NewRunEvent[], callId: string, recordHash: string): NewRunEvent[] {
  return events.map((e) =>
    CALL_OUTCOME_EVENT_TYPES.includes(e.type) && (e.payload as { call_id?: unknown }).call_id === callId
      ? ({ ...e, payload: { ...e.payload, record_hash: recordHash } } as NewRunEvent)
      : e,
  );
}

export async function writeStep(em: EntityManager, run: RunEntity, step: DecidedStep, opts: WriteStepOptions = {}): Promise<WrittenStep> {
  const runId = run.id;
  const { result } = step;
  checkRunEvents(result.events);
  // The hash of what the settled call's row holds now (it was read FOR UPDATE, and an outcome is written once).
  const recordHash = opts.settled ? callRecordHash(opts.settled) : null;
  const stepEvents = recordHash ? withCallRecordHash(result.events, opts.settled!.id, recordHash) : result.events;

  // The events chain from the locked row's head hash; the step that ends the run signs the new
  // head. The head and signature go in the workflow's own UPDATE of the run (one row version).
  const signer = opts.signer && finishedNow(run.status, result.state.status) ? opts.signer : null;
  const events = runEventsInsert(runId, run.eventSeq, run.headHash ?? null, stepEvents, signer ? (sequence, hash) => signer.sign(runId, sequence, hash) : undefined, false);

  const writes = StatementBatch.of(em);
  const runUpdate = await step.write(writes, result.events.length, { head: events.head, signature: events.signature });
  if (result.decisions.length) addStatement(writes, INSERT_DECISIONS, runId, result.decisions);
  // The gate is the engine's, for any workflow: written only when a step opens or closes one (a run that is not waiting has none).
  const gate = (result.state as { status: string; gate?: unknown }).status === 'awaiting_approval' ? ((result.state as { gate?: unknown }).gate ?? null) : null;
  if (JSON.stringify(gate) !== JSON.stringify(run.gate ?? null)) addStatement(writes, UPDATE_RUN_GATE, runId, gate);

  let seq = run.callSeq;
  const jobs = result.commands.map((c) => writeCommand(runId, c, () => ++seq, writes, run.forkedFrom ?? null));
  // A run that answers for an eval cell (issue 25) asks for its cell to be scored as it ends, in
  // the step that ends it: the scorer waits for the cell's other runs (a vote's samples) itself.
  if (run.evalCellId && finishedNow(run.status, result.state.status)) {
    jobs.push(outboxJob('eval.score', { runId, cellId: run.evalCellId }, { runId, jobId: jobId(runId, 'evalscore') }));
  }

  if (stepEvents.length) writes.add(events.sql, events.params);
  const outbox = outboxInsert(jobs);
  const outboxAt = jobs.length ? writes.add(outbox.sql, outbox.params) : -1;
  // One round trip for the rest of the step, with the COMMIT when the caller hands it over.
  const results = await writes.flush(opts.commit ? { after: 'COMMIT' } : {});
  if (results[runUpdate].rowCount !== 1) throw new UnrecoverableError(`run ${runId} does not exist`);
  return {
    outbox: outboxAt >= 0 ? outbox.rowsOf(results[outboxAt].rows as { id: unknown }[]) : [],
    events: events.envelopes,
    status: result.state.status,
  };
}

/**
 * The original call a fork copies for this command, or null to ask a provider: only a first try's
 * or a repair's key the fork recorded before its stage, for the same role and stage (a fork whose
 * replies led elsewhere asks live).
 */
export function forkedCallOf(fork: ForkOrigin | null, c: AnyCommand): { runId: string; callId: string } | null {
  if (!fork || c.kind !== 'agent_call' || !c.label) return null;
  const original = fork.calls[forkCallKey(c.label, c.attempt ?? 1, c.retry ?? 0)];
  if (!original || original.role !== c.role || original.stage !== c.stage) return null;
  return { runId: fork.run_id, callId: original.id };
}

/** Queues a command's row (for any workflow: an agent call's audit row and reservation, a workspace op) and answers its outbox job. */
export function writeCommand(runId: string, c: AnyCommand, nextSeq: () => number, batch: StatementBatch, fork: ForkOrigin | null = null): OutboxJob {
  const exec = <A extends unknown[]>(s: Statement<A, never>, ...args: A): void => {
    addStatement(batch, s, ...args);
  };
  switch (c.kind) {
    case 'agent_call': {
      const original = forkedCallOf(fork, c);
      if (original) {
        // A fork's call before its stage: the recorded reply is copied and reported at once, as a
        // provider-worker would report it; no provider is asked.
        exec(INSERT_COPIED_AGENT_CALL, runId, nextSeq(), c, original);
        return outboxJob('agent.done', { runId, callId: c.callId }, { runId, jobId: jobId(c.callId, 'done') });
      }
      exec(INSERT_AGENT_CALL, runId, nextSeq(), c);
      // A transient retry goes out delayed by its backoff (the engine's retries.ts decided it).
      // The card is for Bull Board's reader only (AgentCallCard): the provider-worker reads the row.
      const card = { role: c.role, label: c.label, stage: c.stage };
      return outboxJob('agent.call', { runId, callId: c.callId, card }, { runId, jobId: jobId(c.callId, 'call'), provider: c.provider, delayMs: c.delayMs });
    }
    case 'workspace.prepare':
    case 'workspace.apply':
    case 'tests.run': {
      const kind = c.kind === 'workspace.prepare' ? 'prepare' : c.kind === 'workspace.apply' ? 'apply' : 'tests';
      const implementationId = c.kind === 'workspace.prepare' ? null : idOf(runId, c.implementationLabel);
      const result = c.kind === 'tests.run' ? ({ command: c.command, timeoutS: c.timeoutS, testLabel: c.testLabel } satisfies TestsOpRequest) : null;
      exec(INSERT_WORKSPACE_OP, runId, c.opId, kind, implementationId, result);
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
      exec(INSERT_READ_OP, runId, c.opId, request);
      return outboxJob('workspace.read', { runId, opId: c.opId }, { runId, jobId: jobId(c.opId, 'read') });
    }
    case 'workspace.merge': {
      // The request rides on the op row (MergeOpRequest); the test-runner writes the outcome over it, merged or refused.
      const request = { into: c.into, strategy: c.strategy, message: c.message, approved_by: c.approvedBy } satisfies MergeOpRequest;
      exec(INSERT_WORKSPACE_OP, runId, c.opId, 'merge', null, request);
      return outboxJob('workspace.merge', { runId, opId: c.opId }, { runId, jobId: jobId(c.opId, 'merge') });
    }
    case 'workspace.export':
      exec(INSERT_WORKSPACE_OP, runId, c.opId, 'export', null, null);
      return outboxJob('workspace.export', { runId, opId: c.opId }, { runId, jobId: jobId(c.opId, 'export') });
    case 'experiment.run':
      exec(INSERT_EXPERIMENT_OP, runId, c.opId, c);
      return outboxJob('experiment.run', { runId, opId: c.opId }, { runId, jobId: jobId(c.opId, 'experiment') });
    case 'experiment.draft':
      exec(INSERT_DRAFTED_EXPERIMENT, runId, c);
      return outboxJob('run.start', { runId: c.childRunId }, { runId: c.childRunId, jobId: jobId(c.childRunId, 'start') });
    case 'run.answer': {
      // Another run's job: a drafted experiment's decision answers its build's open question (one per experiment).
      const payload = { runId: c.runId, questionId: c.questionId, answer: c.answer, answeredBy: `experiment ${c.experimentId}`, experimentId: c.experimentId };
      return outboxJob('run.answer', payload, { runId: c.runId, jobId: jobId(c.runId, 'answer', c.experimentId) });
    }
    case 'workspace.tool': {
      // The turn's tool calls ride on the op row (ToolOpRequest); the test-runner adds their results to the same result.
      const { kind: _kind, opId, ...request } = c;
      exec(INSERT_WORKSPACE_OP, runId, opId, 'tool', null, request satisfies ToolOpRequest);
      return outboxJob('workspace.tool', { runId, opId }, { runId, jobId: jobId(opId, 'tool') });
    }
  }
}
