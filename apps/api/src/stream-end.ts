import { TERMINAL_EVENT_TYPES, TERMINAL_RUN_STATUSES } from '@roundtable/contracts';

/**
 * Event types after which a follower has seen everything there is: the run's end, or the end
 * of a finished panel's appeal (its events come after run_completed, on a later subscription).
 */
const STREAM_END_TYPES: readonly string[] = [...TERMINAL_EVENT_TYPES, 'appeal_completed'];

export const endsStream = (type: string): boolean => STREAM_END_TYPES.includes(type);

/**
 * An event that ends the stream only when the log says so: a panel_warning is how a refused
 * appeal ends (the budget would not fit it), and is then the last event of an ended run with no
 * appeal pending. Any other panel_warning comes before run_completed, so the check answers no.
 */
export const mayEndStream = (type: string): boolean => type === 'panel_warning';

/** SQL (a boolean over `runs r`): the run has ended (what follows, if anything, is a resume or an appeal). */
export const RUN_ENDED_SQL = `(r.status IN (${TERMINAL_RUN_STATUSES.map((s) => `'${s}'`).join(', ')}))`;

/**
 * SQL (a boolean over `runs r`): a panel appeal was requested and has not finished, so a
 * follower that has the run's terminal event must still wait for the appeal's events rather
 * than be told 204. Each appeal job ends in appeal_completed or, when the budget refuses it, in
 * an appeal_refused panel_warning: pending while there are more appeal jobs than such ends (an
 * appeal asked again after a refusal is pending, though the refusal is in the log).
 */
export const APPEAL_PENDING_SQL = `(
  (SELECT count(*) FROM outbox o WHERE o.run_id = r.id AND o.job_name = 'run.appeal')
  > (SELECT count(*) FROM run_events x
      WHERE x.run_id = r.id
        AND (x.type = 'appeal_completed' OR (x.type = 'panel_warning' AND x.payload ->> 'kind' = 'appeal_refused'))))`;
