import type { RunStage } from '@roundtable/contracts';
import { statement } from '@roundtable/persistence';

/**
 * What the engine reads to turn a job into an event (workflows/engine-jobs.ts), beside the
 * settling of a finished call (settle-finished-call.sql.ts).
 */

/** Where the halting decision left a run: a plain resume restarts there. No row: the run never halted. */
export const LAST_HALT_FROM_STAGE = statement<{ from_stage: RunStage }>()({
  text: `SELECT from_stage FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED' ORDER BY id DESC LIMIT 1`,
  params: (runId: string): unknown[] => [runId],
});
