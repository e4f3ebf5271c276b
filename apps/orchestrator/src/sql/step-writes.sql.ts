import { createHash } from 'node:crypto';
import type { ReadOpRequest, TestsOpRequest } from '@roundtable/contracts';
import { statement } from '@roundtable/persistence';
import type { AgentCallCommand, CritiqueRecord, Decision, ImplementationRecord, PanelAgentCallCommand, ProposalRecord, SynthesisRecord } from '@roundtable/workflow';

/**
 * The rows a step writes (step-writer.ts sends them in one batch with the run's UPDATE, the
 * events and the outbox). Inserts use deterministic ids with ON CONFLICT DO NOTHING, so a
 * replayed step adds nothing. No statement here answers rows.
 */

/** What a step leaves on the run row. `config` undefined: unchanged; `verdict` null: unchanged (and confidence with it). */
export interface RunAfterStep {
  status: string;
  stage: string;
  round: number;
  fixRound: number;
  criteria: unknown;
  unresolved: boolean;
  haltReason: string | null;
  config: unknown;
  workspacePath: string | null;
  /** The snapshot of the build's records at the event_seq this UPDATE leaves (toStoredBuildState). */
  workflowState: unknown;
  labelCounters: Record<string, number>;
  callSeq: number;
  verdict: string | null;
  confidence: number | null;
  /** Set when the run starts or ends in this step; null leaves the column as it is. */
  startedAt: Date | null;
  finishedAt: Date | null;
  /** How many events the step appends: event_seq moves past them in this same UPDATE. */
  events: number;
}

/**
 * The run row after a step. The row is locked FOR UPDATE by the step (run.eventSeq was read
 * under the lock), so the events are numbered from it and event_seq moves past them here
 * instead of in a separate UPDATE per append: no other writer can move it meanwhile, and the
 * log stays gap-free (run_events' primary key refuses a number used twice). One text for every
 * step (unchanged columns come as NULL and are kept), so it is prepared once per connection.
 * Answers no rows; rowCount 0 means the run does not exist.
 */
export const UPDATE_RUN_AFTER_STEP = statement<never>()({
  text: `UPDATE runs SET status = $2, stage = $3, round = $4, fix_round = $5, criteria = $6::jsonb, criteria_locked = $6::jsonb IS NOT NULL,
                      unresolved = $7, halt_reason = $8, config = coalesce($9::jsonb, config), workspace_path = $10,
                      label_counters = $11::jsonb, call_seq = $12,
                      verdict = coalesce($13::text, verdict), confidence = CASE WHEN $13::text IS NULL THEN confidence ELSE $14::double precision END,
                      started_at = coalesce($15::timestamptz, started_at), finished_at = coalesce($16::timestamptz, finished_at),
                      event_seq = event_seq + $17, workflow_state = $18::jsonb, updated_at = now()
    WHERE id = $1`,
  params: (runId: string, r: RunAfterStep): unknown[] => [
    runId,
    r.status,
    r.stage,
    r.round,
    r.fixRound,
    jsonParam(r.criteria),
    r.unresolved,
    r.haltReason,
    r.config === undefined ? null : jsonParam(r.config),
    r.workspacePath,
    jsonParam(r.labelCounters),
    r.callSeq,
    r.verdict,
    r.verdict === null ? null : r.confidence,
    r.startedAt,
    r.finishedAt,
    r.events,
    jsonParam(r.workflowState),
  ],
});

/** Labels are stored; ids are `${runId}-${label}`. */
const idOf = (runId: string, label: string | null | undefined) => (label ? `${runId}-${label}` : null);

/** A jsonb parameter: a JS array would otherwise go as a Postgres array, and null must stay SQL NULL. */
export const jsonParam = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

export const INSERT_PROPOSAL = statement<never>()({
  text: `INSERT INTO proposals (id, run_id, call_id, label, revision_of, round, status, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING`,
  params: (runId: string, r: ProposalRecord): unknown[] => [r.id, runId, r.callId, r.label, idOf(runId, r.revisionOf), r.round, r.status, jsonParam(r.body)],
});

export const UPDATE_PROPOSAL_STATUS = statement<never>()({
  text: `UPDATE proposals SET status = $2 WHERE id = $1`,
  params: (runId: string, label: string, status: ProposalRecord['status']): unknown[] => [idOf(runId, label), status],
});

export const INSERT_CRITIQUE = statement<never>()({
  text: `INSERT INTO critiques (id, run_id, call_id, label, target_kind, target_id, verdict, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING`,
  params: (runId: string, r: CritiqueRecord): unknown[] => [r.id, runId, r.callId, r.label, r.targetKind, idOf(runId, r.targetLabel), r.verdict, jsonParam(r.body)],
});

export const INSERT_IMPLEMENTATION = statement<never>()({
  text: `INSERT INTO implementations (id, run_id, call_id, label, proposal_id, fix_round, status, apply_error, body, artifact_ids)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '[]') ON CONFLICT DO NOTHING`,
  params: (runId: string, r: ImplementationRecord): unknown[] => [
    r.id,
    runId,
    r.callId,
    r.label,
    idOf(runId, r.proposalLabel),
    r.fixRound,
    r.status,
    r.applyError ?? null,
    jsonParam(r.body),
  ],
});

export const UPDATE_IMPLEMENTATION_STATUS = statement<never>()({
  text: `UPDATE implementations SET status = $2, apply_error = $3 WHERE id = $1`,
  params: (runId: string, label: string, status: ImplementationRecord['status'], applyError: string | null | undefined): unknown[] => [
    idOf(runId, label),
    status,
    applyError ?? null,
  ],
});

export const INSERT_SYNTHESIS = statement<never>()({
  text: `INSERT INTO syntheses (id, run_id, call_id, label, verdict, partial, body) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
  params: (runId: string, r: SynthesisRecord): unknown[] => [r.id, runId, r.callId ?? null, r.label, r.body?.overall_verdict ?? null, r.partial, jsonParam(r.body)],
});

export const INSERT_OPEN_QUESTION = statement<never>()({
  text: `INSERT INTO open_questions (run_id, raised_by_role, question, status) VALUES ($1, $2, $3, 'open')`,
  params: (runId: string, role: string, question: string): unknown[] => [runId, role, question],
});

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
  params: (runId: string, seq: number, c: AgentCallCommand | PanelAgentCallCommand): unknown[] => {
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

/** A queued prepare, apply or tests op; a tests op carries its request (TestsOpRequest) in `result`. */
export const INSERT_WORKSPACE_OP = statement<never>()({
  text: `INSERT INTO workspace_ops (id, run_id, kind, status, implementation_id, result) VALUES ($1, $2, $3, 'queued', $4, $5) ON CONFLICT DO NOTHING`,
  params: (runId: string, opId: string, kind: 'prepare' | 'apply' | 'tests', implementationId: string | null, request: TestsOpRequest | null): unknown[] => [
    opId,
    runId,
    kind,
    implementationId,
    jsonParam(request),
  ],
});

/** A queued read op: the request rides on the row (ReadOpRequest); the test-runner adds the files it read to the same result. */
export const INSERT_READ_OP = statement<never>()({
  text: `INSERT INTO workspace_ops (id, run_id, kind, status, implementation_id, result) VALUES ($1, $2, 'read', 'queued', NULL, $3) ON CONFLICT DO NOTHING`,
  params: (runId: string, opId: string, request: ReadOpRequest): unknown[] => [opId, runId, jsonParam(request)],
});
