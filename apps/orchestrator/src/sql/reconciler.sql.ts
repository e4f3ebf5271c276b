import { TERMINAL_RUN_STATUSES } from '@roundtable/contracts';

/**
 * The reconciler's statements (see ../reconciler/run-reconciler.ts). Each is a typed constant: its text,
 * how its parameters are built, and the row it answers.
 */

/**
 * Only one reconciler of a database sweeps at a time: a transaction-scoped advisory lock
 * (advisory locks are per database), taken without waiting. A second replica that finds it
 * taken skips this sweep; the lock goes with the transaction, so a crashed sweeper holds nothing.
 */
export const RECONCILE_LOCK = {
  text: `SELECT pg_try_advisory_xact_lock(hashtext('roundtable.reconciler')) AS locked`,
  params: (): unknown[] => [],
} as const;
export interface ReconcileLockRow {
  locked: boolean;
}

/** What a pending item is waiting for, and where its job lives. */
export type PendingKind = 'call' | 'op' | 'call_done' | 'op_done' | 'control' | 'score';

export interface PendingWorkRow {
  kind: PendingKind;
  run_id: string;
  queue: string;
  job_name: string;
  /** The outbox's job id (control rows); for the others, jobId(target, suffix) as their senders build it. */
  job_id: string | null;
  target: string | null;
  suffix: string | null;
  payload: Record<string, unknown>;
  /** Past the age at which a missing job is sent again (young rows are still on their way). */
  due: boolean;
}

/**
 * Every piece of work the rows say is pending, with the job that carries it (names and ids
 * exactly as step-writer, the workers and the api give them, so that a resend of a job still
 * in Redis is a no-op):
 * - call: an agent call (any try) queued or running, for a live run; each try is its own job
 *   (a transient retry is a call the engine queued, with its own `agent.call` job, sent
 *   delayed). A running try is due only past its timeout plus $2 ms: until then its worker may
 *   still be calling the provider.
 * - op: a queued workspace or tests operation of a live run.
 * - call_done / op_done: a finished call (not superseded by a retry) or operation whose report
 *   (agent.done, workspace.done, tests.done, sent by the worker, not the outbox) was never applied.
 * - control: a run.start / run.cancel / run.resume / run.appeal from the outbox (any run status:
 *   a resume asks a halted run) that was never applied, written in the last day.
 * - score: an eval cell (issue 25) still unscored whose runs have all ended: its `eval.score`,
 *   as the step that ended its last run sent it (that run's id in the job id).
 * Parameters: $1 how old (ms) a row must be before its missing job is sent again, $2 the lease
 * margin (ms) over a running call's timeout, $3 the timeout assumed for a call without one.
 * Live runs are found by ix_runs_status and their rows by their run_id indexes.
 * "Never applied": no applied_events row under the key inboxKey() (libs/contracts) gives; the
 * event_key expressions below are that function in SQL, and inbox-key.spec.ts pins its format.
 */
export const PENDING_WORK = {
  text: `WITH live AS (
       SELECT id FROM runs WHERE status IN ('queued', 'running')
     ),
     open_calls AS (
       SELECT c.id, c.run_id, c.provider,
              CASE WHEN c.status = 'queued' THEN c.created_at < now() - make_interval(secs => $1 / 1000.0)
                   ELSE coalesce(c.started_at, c.created_at) < now() - make_interval(secs => (coalesce(c.timeout_ms, $3) + $2) / 1000.0) END AS due
         FROM agent_calls c JOIN live ON live.id = c.run_id
        WHERE c.status IN ('queued', 'running')
     )
     SELECT 'call' AS kind, run_id, 'agent.' || provider AS queue, 'agent.call' AS job_name, NULL::text AS job_id, id AS target, 'call' AS suffix,
            jsonb_build_object('runId', run_id, 'callId', id) AS payload, due
       FROM open_calls
     UNION ALL
     SELECT 'op', w.run_id, CASE WHEN w.kind IN ('tests', 'experiment') THEN 'tests' ELSE 'workspace' END,
            CASE w.kind WHEN 'tests' THEN 'tests.run' WHEN 'experiment' THEN 'experiment.run' ELSE 'workspace.' || w.kind END,
            NULL, w.id, w.kind,
            jsonb_build_object('runId', w.run_id, 'opId', w.id)
              || CASE WHEN w.kind IN ('apply', 'tests') THEN jsonb_build_object('implementationId', w.implementation_id) ELSE '{}'::jsonb END,
            w.created_at < now() - make_interval(secs => $1 / 1000.0)
       FROM workspace_ops w JOIN live ON live.id = w.run_id
      WHERE w.status = 'queued'
     UNION ALL
     SELECT 'call_done', c.run_id, 'orchestrator', 'agent.done', NULL, c.id, 'done',
            jsonb_build_object('runId', c.run_id, 'callId', c.id),
            coalesce(c.finished_at, c.created_at) < now() - make_interval(secs => $1 / 1000.0)
       FROM agent_calls c JOIN live ON live.id = c.run_id
      WHERE c.status IN ('completed', 'failed')
        AND NOT EXISTS (SELECT 1 FROM agent_calls r WHERE r.retry_of = c.id)
        AND NOT EXISTS (SELECT 1 FROM applied_events a WHERE a.run_id = c.run_id AND a.event_key = 'agent.done:' || c.id)
     UNION ALL
     SELECT 'op_done', w.run_id, 'orchestrator', CASE WHEN w.kind IN ('tests', 'experiment') THEN 'tests.done' ELSE 'workspace.done' END,
            NULL, w.id, 'done', jsonb_build_object('runId', w.run_id, 'opId', w.id),
            coalesce(w.finished_at, w.created_at) < now() - make_interval(secs => $1 / 1000.0)
       FROM workspace_ops w JOIN live ON live.id = w.run_id
      WHERE w.status IN ('done', 'failed')
        AND NOT EXISTS (SELECT 1 FROM applied_events a WHERE a.run_id = w.run_id
                           AND a.event_key = CASE WHEN w.kind IN ('tests', 'experiment') THEN 'tests.done:' ELSE 'workspace.done:' END || w.id)
     UNION ALL
     SELECT 'control', o.run_id, o.queue, o.job_name, o.job_id, NULL, NULL, o.payload,
            o.created_at < now() - make_interval(secs => $1 / 1000.0)
       FROM outbox o
      WHERE o.queue = 'orchestrator' AND o.run_id IS NOT NULL AND o.created_at > now() - interval '1 day'
        AND o.job_name IN ('run.start', 'run.cancel', 'run.resume', 'run.appeal', 'run.approve', 'run.answer')
        AND NOT EXISTS (SELECT 1 FROM applied_events a WHERE a.run_id = o.run_id
                           AND a.event_key = CASE WHEN o.job_name IN ('run.resume', 'run.appeal', 'run.approve', 'run.answer') THEN o.job_name || ':' || o.job_id ELSE o.job_name END)
     UNION ALL
     SELECT 'score', last.id, 'tests', 'eval.score', NULL, last.id, 'evalscore',
            jsonb_build_object('runId', last.id, 'cellId', c.id),
            coalesce(last.finished_at, now()) < now() - make_interval(secs => $1 / 1000.0)
       FROM eval_cells c
       CROSS JOIN LATERAL (SELECT r.id, r.finished_at FROM runs r WHERE r.eval_cell_id = c.id
                            ORDER BY r.finished_at DESC NULLS FIRST, r.id DESC LIMIT 1) last
      WHERE c.status = 'running'
        AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.eval_cell_id = c.id AND NOT (r.status = ANY ($4::text[])))`,
  params: (o: { resendAfterMs: number; leaseMarginMs: number; defaultCallTimeoutMs: number }): unknown[] => [
    o.resendAfterMs,
    o.leaseMarginMs,
    o.defaultCallTimeoutMs,
    [...TERMINAL_RUN_STATUSES],
  ],
} as const;

/** Running runs that no step has touched for $1 ms: the candidates for a halt when nothing of theirs is in flight. */
export const QUIET_RUNS = {
  text: `SELECT id, floor(extract(epoch FROM updated_at) * 1000)::bigint AS updated_ms FROM runs
          WHERE status = 'running' AND updated_at < now() - make_interval(secs => $1 / 1000.0)`,
  params: (o: { quietMs: number }): unknown[] => [o.quietMs],
} as const;
/**
 * Runs waiting at a gate for longer than their project's approval_timeout_s: the wait ends as a
 * halt, with the reason. A run without the setting waits as long as it takes (never listed).
 */
export const OVERDUE_GATES = {
  text: `SELECT id, floor(extract(epoch FROM updated_at) * 1000)::bigint AS updated_ms, gate ->> 'name' AS gate, (config ->> 'approval_timeout_s')::double precision AS timeout_s
           FROM runs
          WHERE status = 'awaiting_approval' AND config ? 'approval_timeout_s' AND gate_opened_at IS NOT NULL
            AND gate_opened_at < now() - make_interval(secs => (config ->> 'approval_timeout_s')::double precision)`,
  params: (): unknown[] => [],
} as const;
export interface OverdueGateRow {
  id: string;
  updated_ms: string;
  gate: string | null;
  timeout_s: number;
}

export interface QuietRunRow {
  id: string;
  /** updated_at in whole ms (a bigint, so a string): what the run entity's Date holds, compared by the run.halt step. */
  updated_ms: string;
}
