import type { CallOutcome } from '@roundtable/contracts';
import { CALL_OUTCOME_SET_SQL } from '@roundtable/persistence';
import type { FinishedCall } from '@roundtable/workflow';
import { statement } from '@roundtable/persistence';

/** The finished call as SETTLE_FINISHED_CALL reads it. */
export interface SettledCallRow {
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
  /** The provider-worker's verdict on a failed try (CallOutcome.retryable), and the provider's retry-after. */
  retryable: boolean | null;
  retry_after_ms: number | null;
  /** A fork's copy: the original call's id (its usage is not this run's). Null: a call of its own. */
  copied_from: string | null;
  /** A retry of this try exists: the engine has had this report already, so a repeat of it changes nothing. */
  superseded: boolean;
  /**
   * Always empty: each try is a call the engine queued and reports (and is settled) itself, so
   * no earlier try rides on this one. Kept so FinishedCall.priorAttempts keeps its shape.
   */
  prior: { id: string; error: string | null; errorCode: string | null }[];
}

/**
 * Settles a finished call in one statement (the orchestrator sends it in the batch that takes
 * the run lock). It locks the call's row (FOR UPDATE: a provider-worker still
 * writing the outcome is waited for, and the newest version is what is read); writes the
 * outcome carried by agent.done when the row is still open; reads the call; releases its
 * budget reservation and adds its usage to usage_by_provider (a fork's copy adds none: it was billed to the run it was copied from). Every try is its own call (a
 * transient retry is one the engine queued, with its own reservation), so each settles alone.
 * Nothing is released or counted unless the call has finished (the caller throws then, and
 * the transaction rolls back), or when the try has already been retried (a late duplicate
 * report of a try the engine has answered: ignored). The same for both workflows: the orchestrator
 * sends it with the run lock, before it knows the run's workflow. Parameters: call id, run id,
 * and the CallOutcome JSON or null.
 */
export const SETTLE_FINISHED_CALL = statement<SettledCallRow>()({
  text: `WITH RECURSIVE locked AS (
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
     chain AS (
       SELECT id, input_tokens, output_tokens, cost_usd FROM call
     ),
     billed AS (
       SELECT * FROM chain WHERE (SELECT copied_from FROM call) IS NULL
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
                      coalesce(sum(output_tokens), 0) AS output_tokens, sum(cost_usd) AS cost_usd FROM billed) t
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
            call.retryable, call.retry_after_ms, call.copied_from,
            EXISTS (SELECT 1 FROM superseded) AS superseded,
            '[]'::json AS prior
       FROM call`,
  params: (callId: string, runId: string, outcome: CallOutcome | undefined): unknown[] => [callId, runId, outcome ? JSON.stringify(outcome) : null],
});
