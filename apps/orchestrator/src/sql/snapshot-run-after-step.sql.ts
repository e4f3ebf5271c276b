import { statement } from '@roundtable/persistence';
import { jsonParam } from './step-writes.sql';

/** What a step of a workflow kept in a snapshot (the panel, the experiment) leaves on the run row. `config` undefined: unchanged; `verdict` null: unchanged (and confidence with it). */
export interface SnapshotRunAfterStep {
  status: string;
  stage: string;
  haltReason: string | null;
  /** The workflow's state less what has a column (its module's toStored). */
  workflowState: unknown;
  config: unknown;
  labelCounters: Record<string, number>;
  callSeq: number;
  verdict: string | null;
  confidence: number | null;
  /** Set when the run starts or ends in this step; null leaves the column as it is. */
  startedAt: Date | null;
  finishedAt: Date | null;
  /** How many events the step appends: event_seq moves past them in this same UPDATE. */
  events: number;
  /** The hash chain's head after those events, and its signature when the step ends the run (null: kept). */
  headHash: string | null;
  signature: unknown;
}

/**
 * The run row after a step of a workflow whose state is all in its snapshot (the panel's verdicts
 * and turns, the experiment's draft, result and readings live in workflow_state):
 * UPDATE_RUN_AFTER_STEP's twin for the columns such a run has. The build's columns it does not
 * use (round, criteria, workspace …) are left as they are. The row is locked FOR UPDATE by the
 * step, so event_seq moves past the step's events here, as for the build. Answers no rows;
 * rowCount 0 means the run does not exist.
 */
export const UPDATE_SNAPSHOT_RUN_AFTER_STEP = statement<never>()({
  text: `UPDATE runs SET status = $2, stage = $3, halt_reason = $4, workflow_state = $5::jsonb, config = coalesce($6::jsonb, config),
                      label_counters = $7::jsonb, call_seq = $8,
                      verdict = coalesce($9::text, verdict), confidence = CASE WHEN $9::text IS NULL THEN confidence ELSE $10::double precision END,
                      started_at = coalesce($11::timestamptz, started_at), finished_at = coalesce($12::timestamptz, finished_at),
                      event_seq = event_seq + $13, head_hash = $14, signature = coalesce($15::jsonb, signature), updated_at = now()
    WHERE id = $1`,
  params: (runId: string, r: SnapshotRunAfterStep): unknown[] => [
    runId,
    r.status,
    r.stage,
    r.haltReason,
    jsonParam(r.workflowState),
    r.config === undefined ? null : jsonParam(r.config),
    jsonParam(r.labelCounters),
    r.callSeq,
    r.verdict,
    r.verdict === null ? null : r.confidence,
    r.startedAt,
    r.finishedAt,
    r.events,
    r.headHash,
    r.signature ? jsonParam(r.signature) : null,
  ],
});
