import { TERMINAL_EVENT_TYPES, TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { mayTrailStreamEnd } from '@roundtable/run-view';
import { requestPendingSql } from './run-requests';

/**
 * Event types after which a follower has seen everything there is: the run's end, or the end
 * of a finished panel's appeal (its events come after run_completed, on a later subscription).
 */
const STREAM_END_TYPES: readonly string[] = [...TERMINAL_EVENT_TYPES, 'appeal_completed'];

export const endsStream = (type: string): boolean => STREAM_END_TYPES.includes(type);

/**
 * An event that ends the stream only when the log says so: a refused appeal ends with a
 * panel_warning and may add a budget_warning (its raised caps), in either order, and either is
 * then the last event of an ended run with no appeal pending. Mid-run they end nothing, so the
 * check also asks that the run has ended. The rule is libs/run-view's, which the CLI and the
 * workbench follow too.
 */
export const mayEndStream = (type: string): boolean => mayTrailStreamEnd(type);

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
