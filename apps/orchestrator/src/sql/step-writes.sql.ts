import { createHash } from 'node:crypto';
import { CALL_OUTCOME_COLUMNS, eventHash, type MergeOpRequest, type ReadOpRequest, type TestsOpRequest, type ToolOpRequest } from '@roundtable/contracts';
import { statement } from '@roundtable/persistence';
import type { AgentCallCommandOf, Decision } from '@roundtable/workflow';

/**
 * The rows every workflow's step writes (step-writer.ts sends them in one batch with the run's
 * UPDATE, the events and the outbox): decisions, agent calls, workspace ops. A workflow's own
 * rows are in its folder (workflows/build/build-rows.sql.ts). Inserts use deterministic ids with ON CONFLICT DO NOTHING, so a
 * replayed step adds nothing. No statement here answers rows.
 */

/** Labels are stored; ids are `${runId}-${label}`. */
export const idOf = (runId: string, label: string | null | undefined) => (label ? `${runId}-${label}` : null);

/** A jsonb parameter: a JS array would otherwise go as a Postgres array, and null must stay SQL NULL. */
export const jsonParam = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

/** A build or panel decision, as written. */
export type DecisionRow = Pick<Decision, 'reason'> & { from: string; to: string; refs: unknown };

/** A step's decisions in one INSERT, in order. */
export const INSERT_DECISIONS = statement<never>()({
  text: `INSERT INTO decisions (run_id, from_stage, to_stage, reason, refs)
     SELECT $1, d.from_stage, d.to_stage, d.reason, d.refs
       FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (from_stage text, to_stage text, reason text, refs jsonb)) WITH ORDINALITY AS d(from_stage, to_stage, reason, refs, ord)
      ORDER BY d.ord`,
  params: (runId: string, decisions: readonly DecisionRow[]): unknown[] => [
    runId,
    JSON.stringify(decisions.map((d) => ({ from_stage: d.from, to_stage: d.to, reason: d.reason, refs: d.refs }))),
  ],
});

/** The audit row of a queued agent call and its budget reservation, in one round trip (a data-modifying CTE). */
export const INSERT_AGENT_CALL = statement<never>()({
  text: `WITH call AS (
           INSERT INTO agent_calls (id, run_id, seq, stage, role, provider, model, label, attempt, repair_of, status, prompt_hash,
                                    messages, context_refs, schema_name, max_tokens, temperature, timeout_ms, retry, retry_of)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'queued', $11, $12, $13, $14, $15, $16, $17, $20, $21)
           ON CONFLICT DO NOTHING)
         INSERT INTO budget_reservations (call_id, run_id, provider, calls, tokens, cost_usd) VALUES ($1, $2, $6, 1, $18, $19)
         ON CONFLICT DO NOTHING`,
  params: (runId: string, seq: number, c: AgentCallCommandOf<string, string>): unknown[] => {
    const messages = JSON.stringify(c.messages);
    return [
      c.callId,
      runId,
      seq,
      c.stage,
      c.role,
      c.provider,
      c.model,
      c.label ?? null,
      c.attempt ?? 1,
      c.repairOf ?? null,
      createHash('sha256').update(messages).digest('hex'),
      messages,
      JSON.stringify(c.contextRefs ?? []),
      c.schemaName ?? null,
      c.maxTokens ?? null,
      c.temperature ?? null,
      c.timeoutMs ?? null,
      // The call's worst case, as the workflow's ledger checked it: prompt estimate + max output
      // tokens, and that at the table price (NULL: an unpriced model reserves no USD).
      c.reservedTokens,
      c.reservedCostUsd > 0 ? c.reservedCostUsd : null,
      // A transient retry the engine asked for: which one, and the failed try it retries.
      c.retry ?? 0,
      c.retryOf ?? null,
    ];
  },
});

/** The outcome columns a copy takes from the original row as they are (status, the reply, its validation, tokens, cost, latency, billing). */
const COPIED_OUTCOME_COLUMNS = CALL_OUTCOME_COLUMNS.map((c) => `"${c}"`).join(', ');

/**
 * A fork's call copied from the original run's call (ForkOrigin): a finished row at the fork's own
 * id, seq, label, attempt and retry, holding the original's prompt as it was sent, its model and
 * its whole outcome, with `copied_from` naming it; started and finished now, in the fork's own time
 * (the original row keeps when it was asked, and the latency it took). No budget reservation: a copy costs this run
 * nothing, and settling it counts no usage (SETTLE_FINISHED_CALL). The original is read by id and
 * run, so a key that names another run's call copies nothing.
 */
export const INSERT_COPIED_AGENT_CALL = statement<never>()({
  text: `INSERT INTO agent_calls (id, run_id, seq, stage, role, provider, model, label, attempt, repair_of, prompt_hash,
                              messages, context_refs, schema_name, max_tokens, temperature, timeout_ms, retry, retry_of, copied_from,
                              started_at, ${COPIED_OUTCOME_COLUMNS})
         SELECT $1, $2, $3, $4, $5, o.provider, o.model, $6, $7, $8, o.prompt_hash,
                o.messages, $9::jsonb, o.schema_name, o.max_tokens, o.temperature, o.timeout_ms, $10, $11, o.id,
                now(), ${CALL_OUTCOME_COLUMNS.map((c) => (c === 'finished_at' ? 'now()' : `o."${c}"`)).join(', ')}
           FROM agent_calls o WHERE o.id = $12 AND o.run_id = $13
         ON CONFLICT DO NOTHING`,
  params: (runId: string, seq: number, c: AgentCallCommandOf<string, string>, original: { runId: string; callId: string }): unknown[] => [
    c.callId,
    runId,
    seq,
    c.stage,
    c.role,
    c.label ?? null,
    c.attempt ?? 1,
    c.repairOf ?? null,
    JSON.stringify(c.contextRefs ?? []),
    c.retry ?? 0,
    c.retryOf ?? null,
    original.callId,
    original.runId,
  ],
});

/** A queued prepare, apply or tests op; a tests op carries its request (TestsOpRequest) in `result`. */
export const INSERT_WORKSPACE_OP = statement<never>()({
  text: `INSERT INTO workspace_ops (id, run_id, kind, status, implementation_id, result) VALUES ($1, $2, $3, 'queued', $4, $5) ON CONFLICT DO NOTHING`,
  params: (runId: string, opId: string, kind: 'prepare' | 'apply' | 'tests' | 'merge' | 'tool' | 'export', implementationId: string | null, request: TestsOpRequest | MergeOpRequest | ToolOpRequest | null): unknown[] => [
    opId,
    runId,
    kind,
    implementationId,
    jsonParam(request),
  ],
});

/**
 * The method's command of an experiment (issue 24): the request is written from the experiments
 * row itself (its hash, repository and pinned commit), so what runs is what was locked; the step
 * gives only the command, metrics and timeout from the preregistration it holds. No row when the
 * experiment is not locked (a draft): nothing is queued, and the test-runner is never asked.
 */
export const INSERT_EXPERIMENT_OP = statement<never>()({
  text: `INSERT INTO workspace_ops (id, run_id, kind, status, implementation_id, result)
         SELECT $1, $2, 'experiment', 'queued', NULL,
                jsonb_build_object('experiment_id', e.id, 'prereg_hash', e.prereg_hash, 'repo', e.repo, 'commit', e.commit,
                                   'command', $4::text, 'metrics', $5::jsonb, 'timeout_s', $6::double precision)
           FROM experiments e WHERE e.id = $3 AND e.prereg_hash IS NOT NULL
         ON CONFLICT DO NOTHING`,
  params: (runId: string, opId: string, c: { experimentId: string; command: string; metrics: string[]; timeoutS: number }): unknown[] => [
    opId,
    runId,
    c.experimentId,
    c.command,
    JSON.stringify(c.metrics),
    c.timeoutS,
  ],
});

/**
 * A build's NEEDS_EXPERIMENT at autonomy 3 (issue 24): its experiment, drafted in a run of its
 * own, in one statement — a project, the experiments row (a draft, its source the build and the
 * question), the experiment run (queued, at INIT) and its run_created event. The draft is pinned
 * to the commit the build's worktree was made from (the prepare op's base commit, in the repository
 * the test-runner admitted), so what the experiment runs is the code the critic read. The run and
 * the experiment are the build's submitter's and belong to the build's team (issue 26): a team's
 * run never drafts work another team sees.
 */
export const INSERT_DRAFTED_EXPERIMENT = statement<never>()({
  text: `WITH parent AS (SELECT submitted_by, team FROM runs WHERE id = $1),
         base AS (
           SELECT result->>'base_commit' AS sha, result->>'origin' AS repo FROM workspace_ops
            WHERE run_id = $1 AND kind = 'prepare' AND status = 'done' AND result->>'source' = 'worktree'
            ORDER BY created_at DESC LIMIT 1),
         cfg AS (
           SELECT CASE WHEN base.sha IS NULL THEN $4::jsonb ELSE jsonb_set($4::jsonb, '{commit}', to_jsonb(base.sha)) END AS config,
                  base.sha, base.repo
             FROM (SELECT 1) one LEFT JOIN base ON true),
         project AS (
           INSERT INTO projects (id, name, objective, requirements, config)
           SELECT 'prj_' || $3, $4::jsonb->>'project', $4::jsonb->>'draft_from', '[]'::jsonb, cfg.config FROM cfg
           ON CONFLICT DO NOTHING RETURNING id),
         experiment AS (
           INSERT INTO experiments (id, project_id, status, repo, commit, source, run_id, created_by, prereg, prereg_hash, locked_at, team)
           SELECT $2, 'prj_' || $3, 'draft', coalesce(cfg.repo, $4::jsonb->>'repo'), cfg.sha, $4::jsonb->'source', $3, 'run ' || $1, NULL, NULL, NULL, parent.team FROM cfg, parent
           ON CONFLICT DO NOTHING RETURNING id),
         run AS (
           INSERT INTO runs (id, project_id, workflow, status, stage, config, submitted_by, event_seq, team, head_hash)
           SELECT $3, 'prj_' || $3, 'experiment', 'queued', 'INIT', cfg.config, parent.submitted_by, 1, parent.team, $7 FROM cfg, parent
           ON CONFLICT DO NOTHING RETURNING id)
         INSERT INTO run_events (run_id, sequence, type, payload, created_at, hash)
         SELECT run.id, 1, 'run_created', $5::jsonb, $6, $7 FROM run`,
  // The child run's first event, hashed here as the event log would (the head of a new chain).
  params: (runId: string, c: { experimentId: string; childRunId: string; config: unknown }): unknown[] => {
    const created = { project: (c.config as { project?: unknown }).project, workflow: 'experiment' };
    const at = new Date();
    const hash = eventHash(null, { run_id: c.childRunId, sequence: 1, type: 'run_created', payload: created, created_at: at.toISOString() });
    return [runId, c.experimentId, c.childRunId, jsonParam(c.config), JSON.stringify(created), at, hash];
  },
});

/** A queued read op: the request rides on the row (ReadOpRequest); the test-runner adds the files it read to the same result. */
export const INSERT_READ_OP = statement<never>()({
  text: `INSERT INTO workspace_ops (id, run_id, kind, status, implementation_id, result) VALUES ($1, $2, 'read', 'queued', NULL, $3) ON CONFLICT DO NOTHING`,
  params: (runId: string, opId: string, request: ReadOpRequest): unknown[] => [opId, runId, jsonParam(request)],
});

/**
 * A resume or appeal request applied by this step (runs.requests_applied, whose only writer is
 * the step): the api tells a request still waiting from the run row alone. Parameters: run id,
 * the request's job name.
 */
export const COUNT_APPLIED_REQUEST = statement<never>()({
  text: `UPDATE runs SET requests_applied = jsonb_set(requests_applied, ARRAY[$2::text], to_jsonb(coalesce((requests_applied ->> $2::text)::int, 0) + 1))
    WHERE id = $1`,
  params: (runId: string, jobName: string): unknown[] => [runId, jobName],
});

/**
 * The gate columns, when a step opens or closes a gate (engine/gates.ts): the gate itself, when
 * its wait began, and, as it closes, the wait added to waited_seconds (what max_seconds does not
 * count). Every right-hand side reads the row as it was before this UPDATE.
 */
export const UPDATE_RUN_GATE = statement<never>()({
  text: `UPDATE runs SET waited_seconds = waited_seconds + CASE WHEN gate IS NOT NULL AND $2::jsonb IS NULL THEN extract(epoch FROM now() - gate_opened_at) ELSE 0 END,
                      gate_opened_at = CASE WHEN $2::jsonb IS NULL THEN NULL WHEN gate IS NULL THEN now() ELSE gate_opened_at END,
                      gate = $2::jsonb
    WHERE id = $1`,
  params: (runId: string, gate: unknown): unknown[] => [runId, jsonParam(gate)],
});
