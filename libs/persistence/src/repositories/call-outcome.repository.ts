import { CALL_OUTCOME_COLUMNS, type CallOutcome } from '@roundtable/contracts';
import { statement } from '../statement';

/**
 * The SET list that writes a CallOutcome onto an agent_calls row, for an
 * `UPDATE agent_calls … FROM jsonb_populate_record(NULL::agent_calls, <outcome jsonb>) o`:
 * the JSON's keys are the column names, so Postgres converts each value to its column's type.
 * Used by the provider-worker (recording a call) and by the orchestrator's settling of a
 * finished call (the same outcome, carried by agent.done), so both write the same columns.
 * Shared, so it lives here and not in the orchestrator's SQL folder: two services write a
 * call's outcome today (the provider-worker first, the orchestrator's settle only if the row is
 * still open), and one SET list is what keeps the two writes the same.
 */
export const CALL_OUTCOME_SET_SQL = CALL_OUTCOME_COLUMNS.map((c) => `"${c}" = o."${c}"`).join(', ');

/**
 * Records a finished call's outcome, only while the row is open: a second writer (another
 * delivery, or the orchestrator settling from agent.done) cannot overwrite a recorded outcome.
 * Parameters: call id, the CallOutcome as JSON text.
 */
export const RECORD_CALL_OUTCOME_SQL = `UPDATE agent_calls SET ${CALL_OUTCOME_SET_SQL}
    FROM jsonb_populate_record(NULL::agent_calls, $2::jsonb) o
   WHERE agent_calls.id = $1 AND agent_calls.status IN ('queued', 'running')`;

/** RECORD_CALL_OUTCOME_SQL as a typed statement: the provider-worker's write of a call's outcome. No rows answered. */
export const RECORD_CALL_OUTCOME = statement<never>()({
  text: RECORD_CALL_OUTCOME_SQL,
  params: (callId: string, outcome: CallOutcome): unknown[] => [callId, JSON.stringify(outcome)],
});
