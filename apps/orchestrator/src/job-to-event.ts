import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isAgentSchemaName, JobName, JobOf, parseWorkspaceOp, readOpFiles, Stage, type TestsOpResult } from '@roundtable/contracts';
import { CALL_OUTCOME_SET_SQL, labelOfId, RunEntity, testRunRecord, TestRunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import type { BuildEvent, FinishedCall } from '@roundtable/workflow';

export class StaleJobError extends Error {}

/** The finished call as SETTLE_FINISHED_CALL_SQL reads it, with the tries it retried. */
interface SettledCallRow {
  id: string;
  role: string;
  stage: string;
  label: string | null;
  attempt: number;
  retry: number;
  provider: string;
  model: string;
  status: string;
  valid: boolean | null;
  parsed: Record<string, unknown> | null;
  response_text: string | null;
  error: string | null;
  error_code: string | null;
  schema_name: string | null;
  messages: FinishedCall['messages'];
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: string | null;
  latency_ms: number | null;
  /** A retry of this try exists: another delivery found it interrupted, and the retry reports instead. */
  superseded: boolean;
  /** The tries before this one (transient retries, linked by `retry_of`), oldest first. */
  prior: { id: string; error: string | null; errorCode: string | null }[];
}

/**
 * Settles a finished call in one statement (the orchestrator sends it in the batch that takes
 * the run lock). It locks the call's row (FOR UPDATE: a provider-worker still
 * writing the outcome is waited for, and the newest version is what is read); writes the
 * outcome carried by agent.done when the row is still open; reads the call and the tries it
 * retried (agent.done names the last try; the tries before it are settled with it); releases
 * the chain's budget reservations and adds the chain's usage to usage_by_provider. Nothing is
 * released or counted unless the call has finished (the caller throws then, and the
 * transaction rolls back) or when the try has been superseded by a retry (another delivery
 * found it interrupted: that retry reports). The same for both workflows: the orchestrator
 * sends it with the run lock, before it knows the run's workflow. Parameters: call id, run id,
 * and the CallOutcome JSON or null.
 */
export const SETTLE_FINISHED_CALL_SQL = `WITH RECURSIVE locked AS (
       SELECT * FROM agent_calls WHERE id = $1 AND run_id = $2 FOR UPDATE
     ),
     reported AS (
       UPDATE agent_calls SET ${CALL_OUTCOME_SET_SQL}
         FROM jsonb_populate_record(NULL::agent_calls, $3::jsonb) o
        WHERE agent_calls.id = (SELECT id FROM locked) AND agent_calls.status IN ('queued', 'running') AND $3::jsonb IS NOT NULL
       RETURNING agent_calls.*
     ),
     call AS (
       SELECT * FROM reported
       UNION ALL
       SELECT * FROM locked WHERE NOT EXISTS (SELECT 1 FROM reported)
     ),
     superseded AS (
       SELECT 1 FROM agent_calls r WHERE r.retry_of = $1 AND r.run_id = $2
     ),
     prior AS (
       SELECT id, retry_of, input_tokens, output_tokens, cost_usd, error, error_code, 1 AS depth
         FROM agent_calls WHERE id = (SELECT retry_of FROM locked) AND run_id = $2
       UNION ALL
       SELECT c.id, c.retry_of, c.input_tokens, c.output_tokens, c.cost_usd, c.error, c.error_code, prior.depth + 1
         FROM agent_calls c JOIN prior ON c.id = prior.retry_of
        WHERE prior.depth < 50
     ),
     chain AS (
       SELECT id, input_tokens, output_tokens, cost_usd FROM call
       UNION ALL
       SELECT id, input_tokens, output_tokens, cost_usd FROM prior
     ),
     finished AS (
       SELECT call.provider FROM call
        WHERE call.status IN ('completed', 'failed') AND NOT EXISTS (SELECT 1 FROM superseded)
     ),
     released AS (
       DELETE FROM budget_reservations
        WHERE run_id = $2 AND call_id IN (SELECT id FROM chain) AND EXISTS (SELECT 1 FROM finished)
     ),
     counted AS (
       INSERT INTO usage_by_provider (run_id, provider, calls, input_tokens, output_tokens, cost_usd)
       SELECT $2, finished.provider, t.calls, t.input_tokens, t.output_tokens, t.cost_usd
         FROM finished,
              (SELECT count(*) AS calls, coalesce(sum(input_tokens), 0) AS input_tokens,
                      coalesce(sum(output_tokens), 0) AS output_tokens, sum(cost_usd) AS cost_usd FROM chain) t
       ON CONFLICT (run_id, provider) DO UPDATE SET
         calls = usage_by_provider.calls + EXCLUDED.calls,
         input_tokens = usage_by_provider.input_tokens + EXCLUDED.input_tokens,
         output_tokens = usage_by_provider.output_tokens + EXCLUDED.output_tokens,
         cost_usd = CASE WHEN EXCLUDED.cost_usd IS NULL THEN usage_by_provider.cost_usd
                         ELSE COALESCE(usage_by_provider.cost_usd, 0) + EXCLUDED.cost_usd END
     )
     SELECT call.id, call.role, call.stage, call.label, call.attempt, call.retry, call.provider, call.model, call.status,
            call.valid, call.parsed, call.response_text, call.error, call.error_code, call.schema_name, call.messages,
            call.input_tokens, call.output_tokens, call.cost_usd::text AS cost_usd, call.latency_ms,
            EXISTS (SELECT 1 FROM superseded) AS superseded,
            (SELECT coalesce(json_agg(json_build_object('id', p.id, 'error', p.error, 'errorCode', p.error_code) ORDER BY p.depth DESC), '[]')
               FROM prior p) AS prior
       FROM call`;

/** A finished tests op, parsed (parseWorkspaceOp): what the test-runner measured, and its label. */
function testRunEntityOf(em: EntityManager, runId: string, op: { implementationId: string | null }, r: TestsOpResult): TestRunEntity {
  return em.create(TestRunEntity, {
    id: `${runId}-${r.testLabel}`,
    runId,
    implementationId: op.implementationId!,
    label: r.testLabel,
    command: r.command,
    exitCode: r.exit_code,
    passed: r.passed,
    failed: r.failed,
    errors: r.errors,
    timedOut: r.timed_out,
    outputArtifactId: r.output_artifact_id,
    durationS: r.duration_s,
    runner: r.runner,
  });
}

/**
 * Records a finished test run. Called after decide(), because the workflow tells a new test
 * run from one it has already seen by whether the state holds it.
 */
export async function recordTestRun(em: EntityManager, runId: string, opId: string): Promise<void> {
  const row = await em.findOneByOrFail(WorkspaceOpEntity, { id: opId, runId });
  const op = parseWorkspaceOp(row);
  if (op.kind !== 'tests' || op.status !== 'done') throw new Error(`workspace op ${opId} is a ${op.status} ${op.kind} op, not a finished test run`);
  await em
    .createQueryBuilder()
    .insert()
    .into(TestRunEntity)
    .values(testRunEntityOf(em, runId, row, op.result) as unknown as QueryDeepPartialEntity<TestRunEntity>)
    .orIgnore()
    .execute();
}

/**
 * Turns a queue job (ids only) into the workflow event it stands for, reading the rows the
 * workers wrote. A finished call (agent.done) is not mapped here: it is settled with the run
 * lock and finishedCallEvent maps the settled row.
 */
export async function jobToBuildEvent(em: EntityManager, run: RunEntity, name: JobName, payload: Record<string, unknown>): Promise<BuildEvent> {
  switch (name) {
    case 'run.start':
      return { type: 'start' };
    case 'run.cancel':
      return { type: 'cancel' };
    case 'agent.done':
      // Settled with the run lock (SETTLE_FINISHED_CALL_SQL); finishedCallEvent maps that row.
      throw new Error('agent.done is settled with the run lock, not mapped here: use finishedCallEvent');
    case 'workspace.done': {
      const p = payload as JobOf<'workspace.done'>;
      const row = await em.findOneByOrFail(WorkspaceOpEntity, { id: p.opId, runId: run.id });
      const op = parseWorkspaceOp(row);
      if (op.kind === 'read') return { type: 'files_read', opId: op.id, files: readOpFiles(op) ?? [] };
      if (op.kind === 'prepare') {
        return op.status === 'done'
          ? { type: 'workspace_prepared', opId: op.id, path: op.result.path, tree: op.result.tree }
          : { type: 'workspace_failed', opId: op.id, error: op.error ?? 'workspace preparation failed' };
      }
      if (op.kind !== 'apply') throw new Error(`workspace.done for op ${op.id}, a ${op.kind} op (its report is tests.done)`);
      const implementationLabel = labelOfId(run.id, row.implementationId) ?? '';
      return op.status === 'done'
        ? {
            type: 'files_applied',
            opId: op.id,
            implementationLabel,
            tree: op.result.tree,
            ...(op.result.diff_artifact_id ? { diffArtifactId: op.result.diff_artifact_id } : {}),
          }
        : { type: 'files_rejected', opId: op.id, implementationLabel, error: op.error ?? 'files were rejected' };
    }
    case 'tests.done': {
      const p = payload as JobOf<'tests.done'>;
      const row = await em.findOneByOrFail(WorkspaceOpEntity, { id: p.opId, runId: run.id });
      const op = parseWorkspaceOp(row);
      if (op.kind !== 'tests') throw new Error(`tests.done for op ${op.id}, a ${op.kind} op (its report is workspace.done)`);
      if (op.status !== 'done') return { type: 'tests_failed_to_run', opId: op.id, error: op.error ?? 'the test command could not run' };
      const entity = testRunEntityOf(em, run.id, row, op.result);
      return { type: 'tests_finished', opId: op.id, testRun: testRunRecord(run.id, entity, op.result.output_tail) };
    }
    case 'run.resume': {
      const p = payload as JobOf<'run.resume'>;
      if (p.from) return { type: 'resume', at: p.from, rerun: true, caps: p.caps };
      // Without a named stage, restart where the halting decision left the run.
      const [last] = (await em.query(
        `SELECT from_stage FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED' ORDER BY id DESC LIMIT 1`,
        [run.id],
      )) as { from_stage: Stage }[];
      return { type: 'resume', at: last?.from_stage ?? (run.stage as Stage), rerun: false, caps: p.caps };
    }
    default:
      throw new UnrecoverableError(`job ${name} is not for the orchestrator`);
  }
}

/** The workflow event for a call settled by SETTLE_FINISHED_CALL_SQL (its row, or undefined when there is none). */
export function finishedCallEvent(runId: string, callId: string, settled: object | undefined): BuildEvent {
  const call = settled as SettledCallRow | undefined;
  // Permanent (UnrecoverableError): no retry makes the row exist. A call not finished yet is a StaleJobError, retried.
  if (!call) throw new UnrecoverableError(`agent call ${callId} of run ${runId} does not exist`);
  if (call.status !== 'completed' && call.status !== 'failed') {
    throw new StaleJobError(`agent call ${call.id} is ${call.status}, not finished`);
  }
  const finished: FinishedCall = {
    id: call.id,
    role: call.role as FinishedCall['role'],
    stage: call.stage as FinishedCall['stage'],
    label: call.label,
    attempt: call.attempt,
    retry: call.retry,
    priorAttempts: call.prior,
    provider: call.provider,
    model: call.model,
    status: call.status as FinishedCall['status'],
    valid: call.valid,
    parsed: call.parsed,
    responseText: call.response_text,
    error: call.error,
    errorCode: call.error_code,
    schemaName: call.schema_name && isAgentSchemaName(call.schema_name) ? call.schema_name : null,
    messages: call.messages,
    usage: {
      inputTokens: call.input_tokens,
      outputTokens: call.output_tokens,
      costUsd: call.cost_usd === null ? null : Number(call.cost_usd),
      latencyMs: call.latency_ms,
    },
  };
  return { type: 'agent_call_finished', call: finished };
}
