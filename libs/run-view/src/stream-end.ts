import type { RunEventType } from '@roundtable/contracts';

/**
 * Where the api ends a run's event stream (apps/api/src/stream-end.ts): a terminal event, or the
 * end of a finished panel's appeal, whose events come after run_completed. The contracts'
 * TERMINAL_EVENT_TYPES plus appeal_completed, restated so that the CLI's start and the browser
 * bundle load no zod (a spec holds the two equal). A follower whose stream closes after one of
 * these has not dropped.
 */
export const STREAM_END_TYPES: readonly RunEventType[] = ['run_completed', 'run_failed', 'run_cancelled', 'appeal_completed'];

/**
 * Events that may come after a run's end without reopening it: a refused appeal's panel_warning
 * (the budget would not fit it) and the budget_warning its raised caps may bring, in either
 * order. Mid-run they are just notices, so alone they end nothing: a stream whose last events are
 * these ends only if the run has ended (the api checks its row; a client, that a stream end came
 * before them, see streamEndedAfter).
 */
export const TRAILING_EVENT_TYPES: readonly RunEventType[] = ['panel_warning', 'budget_warning'];

// Stryker disable next-line ConditionalExpression: the typeof guard only narrows the type, includes() is false for null and undefined too (`false` is killed)
export const endsStream = (type: string | null | undefined): boolean => typeof type === 'string' && (STREAM_END_TYPES as readonly string[]).includes(type);

/** An event that may trail a run's end (see TRAILING_EVENT_TYPES). */
export const mayTrailStreamEnd = (type: string | null | undefined): boolean =>
  typeof type === 'string' && (TRAILING_EVENT_TYPES as readonly string[]).includes(type);

/**
 * The one rule for "has the log, as read so far, reached its end": given whether it had before
 * this event, is it at an end after it? A stream-end event ends it; a trailing event
 * (panel_warning, budget_warning, in any order and number) keeps an end that came before it;
 * anything else (a resume, an appeal's start) reopens it. Fold it over the types in log order.
 */
export const streamEndedAfter = (endedBefore: boolean, type: string | null | undefined): boolean =>
  endsStream(type) || (endedBefore && mayTrailStreamEnd(type));

/** streamEndedAfter over a run of event types, in log order, from a point not known to be an end. */
export const logEndsWith = (types: readonly (string | null | undefined)[], endedBefore = false): boolean =>
  types.reduce<boolean>((ended, type) => streamEndedAfter(ended, type), endedBefore);
