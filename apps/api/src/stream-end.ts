import { TERMINAL_EVENT_TYPES, TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { requestPendingSql } from './run-requests';

/**
 * Event types after which a follower has seen everything there is: the run's end, or the end
 * of a finished panel's appeal (its events come after run_completed, on a later subscription).
 */
const STREAM_END_TYPES: readonly string[] = [...TERMINAL_EVENT_TYPES, 'appeal_completed'];

export const endsStream = (type: string): boolean => STREAM_END_TYPES.includes(type);

/**
 * An event that ends the stream only when the log says so (libs/run-view's rule, which the CLI and
 * the workbench follow too): a refused appeal's panel_warning and budget_warning, in either order,
 * are then the last events of an ended run with no appeal pending. Mid-run they end nothing, so
 * the callers also ask that the run has ended.
 */
export { mayTrailStreamEnd as mayEndStream } from '@roundtable/run-view';

/** SQL (a boolean over `runs r`): the run has ended (what follows, if anything, is a resume or an appeal). */
export const RUN_ENDED_SQL = `(r.status IN (${TERMINAL_RUN_STATUSES.map((s) => `'${s}'`).join(', ')}))`;

/**
 * SQL (a boolean over `runs r`): an appeal was requested and no step has applied it yet, so a
 * follower that has the run's terminal event must still wait for the appeal's events rather
 * than be told 204 (an appeal asked again after a refusal is pending, though the refusal is in
 * the log). Once applied, the appeal's events follow the terminal one, or its refusal ends the
 * log; both are on the run row (run-requests.ts), never read from the outbox.
 */
export const APPEAL_PENDING_SQL = requestPendingSql('run.appeal');
