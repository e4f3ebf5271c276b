import { createHash } from 'node:crypto';
import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { jobId, NewRunEvent, RunEventEnvelope, type ReadOpRequest, type TestsOpRequest } from '@roundtable/contracts';
import { preparedQuery, StatementBatch, type RunEntity } from '@roundtable/persistence';
import { checkRunEvents, outboxInsert, outboxJob, OutboxJob, OutboxRow, runEventsInsert } from '@roundtable/events';
import type { BuildRunState, Command, DomainRecord, PanelAgentCallCommand, StepResult } from '@roundtable/workflow';

const TERMINAL = new Set(['done', 'halted', 'needs_input', 'cancelled', 'failed']);

export interface WrittenStep {
  /** The outbox rows written, handed to OutboxDispatcher.dispatchRows after the commit. */
  outbox: OutboxRow[];
  events: RunEventEnvelope[];
  status: string;
}

const idOf = (runId: string, label: string | null | undefined) => (label ? `${runId}-${label}` : null);

/** A jsonb parameter: node-postgres would send a JS array as a Postgres array, and null must stay SQL NULL. */
export const jsonParam = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

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

  const sets: string[] = [];
  const params: unknown[] = [runId];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  set('status', s.status);
  set('stage', s.stage);
  set('round', s.round);
  set('fix_round', s.fixRound);
  set('criteria', jsonParam(s.criteria));
  set('criteria_locked', s.criteria !== null);
  set('unresolved', s.unresolved);
  set('halt_reason', s.haltReason);
  // decide() hands back the loaded config object unless a resume raised caps: only then is it rewritten.
  if (s.config !== (run.config as unknown)) set('config', jsonParam(s.config));
  set('workspace_path', s.workspace.path);
  set('label_counters', jsonParam(labelCounters));
  set('call_seq', callSeq ?? run.callSeq);
  if (result.verdict) {
    set('verdict', result.verdict);
    set('confidence', result.confidence);
  }
  if (becameRunning) set('started_at', new Date());
  if (becameTerminal) set('finished_at', new Date());
  // The run row is locked FOR UPDATE by this step (run.eventSeq was read under the lock), so
  // the events are numbered from it and event_seq moves past them in this same UPDATE instead
  // of a separate one per append: no other writer can move it meanwhile, and the log stays
  // gap-free (and run_events' primary key refuses a number used twice).
  params.push(newEvents.length);
  const writes = StatementBatch.of(em);
  const runUpdate = writes.add(
    `UPDATE runs SET ${sets.join(', ')}, event_seq = event_seq + $${params.length}, updated_at = now() WHERE id = $1`,
    params,
  );
  for (const r of result.records) writeRecord(writes, runId, r);
  const decisions = decisionsInsert(runId, result.decisions);
  if (decisions) writes.add(decisions.sql, decisions.params);
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
  const insert = decisionsInsert(runId, decisions);
  if (insert) await preparedQuery(em, insert.sql, insert.params);
}

type DecisionRow = { from: string; to: string; reason: string; refs: unknown };

function decisionsInsert(runId: string, decisions: readonly DecisionRow[]): { sql: string; params: unknown[] } | null {
  if (!decisions.length) return null;
  return {
    sql: `INSERT INTO decisions (run_id, from_stage, to_stage, reason, refs)
     SELECT $1, d.from_stage, d.to_stage, d.reason, d.refs
       FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (from_stage text, to_stage text, reason text, refs jsonb)) WITH ORDINALITY AS d(from_stage, to_stage, reason, refs, ord)
      ORDER BY d.ord`,
    params: [runId, JSON.stringify(decisions.map((d) => ({ from_stage: d.from, to_stage: d.to, reason: d.reason, refs: d.refs })))],
  };
}

/** Queues the statement that writes one domain record. */
function writeRecord(batch: StatementBatch, runId: string, r: DomainRecord): void {
  switch (r.kind) {
    case 'proposal':
      batch.add(
        `INSERT INTO proposals (id, run_id, call_id, label, revision_of, round, status, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING`,
        [r.record.id, runId, r.record.callId, r.record.label, idOf(runId, r.record.revisionOf), r.record.round, r.record.status, jsonParam(r.record.body)],
      );
      return;
    case 'proposal_status':
      batch.add(`UPDATE proposals SET status = $2 WHERE id = $1`, [idOf(runId, r.label), r.status]);
      return;
    case 'critique':
      batch.add(
        `INSERT INTO critiques (id, run_id, call_id, label, target_kind, target_id, verdict, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING`,
        [
          r.record.id,
          runId,
          r.record.callId,
          r.record.label,
          r.record.targetKind,
          idOf(runId, r.record.targetLabel),
          r.record.verdict,
          jsonParam(r.record.body),
        ],
      );
      return;
    case 'implementation':
      batch.add(
        `INSERT INTO implementations (id, run_id, call_id, label, proposal_id, fix_round, status, apply_error, body, artifact_ids)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '[]') ON CONFLICT DO NOTHING`,
        [
          r.record.id,
          runId,
          r.record.callId,
          r.record.label,
          idOf(runId, r.record.proposalLabel),
          r.record.fixRound,
          r.record.status,
          r.record.applyError ?? null,
          jsonParam(r.record.body),
        ],
      );
      return;
    case 'implementation_status':
      batch.add(`UPDATE implementations SET status = $2, apply_error = $3 WHERE id = $1`, [idOf(runId, r.label), r.status, r.applyError ?? null]);
      return;
    case 'synthesis':
      batch.add(
        `INSERT INTO syntheses (id, run_id, call_id, label, verdict, partial, body) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [r.record.id, runId, r.record.callId ?? null, r.record.label, r.record.body?.overall_verdict ?? null, r.record.partial, jsonParam(r.record.body)],
      );
      return;
    case 'open_question':
      batch.add(`INSERT INTO open_questions (run_id, raised_by_role, question, status) VALUES ($1, $2, $3, 'open')`, [runId, r.role, r.question]);
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
  const exec = async (sql: string, params: unknown[]): Promise<void> => {
    if (batch) batch.add(sql, params);
    else await preparedQuery(em, sql, params);
  };
  switch (c.kind) {
    case 'agent_call': {
      const messages = JSON.stringify(c.messages);
      const promptHash = createHash('sha256').update(messages).digest('hex');
      // The audit row and its budget reservation in one round trip (a data-modifying CTE).
      await exec(
        `WITH call AS (
           INSERT INTO agent_calls (id, run_id, seq, stage, role, provider, model, label, attempt, repair_of, status, prompt_hash,
                                    messages, context_refs, schema_name, max_tokens, temperature, timeout_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'queued', $11, $12, $13, $14, $15, $16, $17)
           ON CONFLICT DO NOTHING)
         INSERT INTO budget_reservations (call_id, run_id, provider, calls, tokens, cost_usd) VALUES ($1, $2, $6, 1, $18, NULL)
         ON CONFLICT DO NOTHING`,
        [
          c.callId,
          runId,
          nextSeq(),
          c.stage,
          c.role,
          c.provider,
          c.model,
          c.label ?? null,
          c.attempt ?? 1,
          c.repairOf ?? null,
          promptHash,
          messages,
          JSON.stringify(c.contextRefs ?? []),
          c.schemaName ?? null,
          c.maxTokens ?? null,
          c.temperature ?? null,
          c.timeoutMs ?? null,
          c.estimatedTokens,
        ],
      );
      return outboxJob('agent.call', { runId, callId: c.callId }, { runId, jobId: jobId(c.callId, 'call'), provider: c.provider });
    }
    case 'workspace.prepare':
    case 'workspace.apply':
    case 'tests.run': {
      const kind = c.kind === 'workspace.prepare' ? 'prepare' : c.kind === 'workspace.apply' ? 'apply' : 'tests';
      const implementationId = c.kind === 'workspace.prepare' ? null : idOf(runId, c.implementationLabel);
      const result = c.kind === 'tests.run' ? ({ command: c.command, timeoutS: c.timeoutS, testLabel: c.testLabel } satisfies TestsOpRequest) : null;
      await exec(
        `INSERT INTO workspace_ops (id, run_id, kind, status, implementation_id, result) VALUES ($1, $2, $3, 'queued', $4, $5) ON CONFLICT DO NOTHING`,
        [c.opId, runId, kind, implementationId, jsonParam(result)],
      );
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
      await exec(
        `INSERT INTO workspace_ops (id, run_id, kind, status, implementation_id, result) VALUES ($1, $2, 'read', 'queued', NULL, $3) ON CONFLICT DO NOTHING`,
        [c.opId, runId, jsonParam(request)],
      );
      return outboxJob('workspace.read', { runId, opId: c.opId }, { runId, jobId: jobId(c.opId, 'read') });
    }
  }
}
