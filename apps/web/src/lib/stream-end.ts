/**
 * Event types after which a follower of `?through=end` has seen all there is (for now): the run's
 * terminal events, and the end of a finished panel's appeal. Restated from the api's
 * stream-end.ts and the contracts' TERMINAL_EVENT_TYPES, which the browser cannot import (zod).
 */
export const STREAM_END_TYPES: readonly string[] = ['run_completed', 'run_failed', 'run_cancelled', 'appeal_completed'];

export const endsStream = (type: string | null): boolean => type !== null && STREAM_END_TYPES.includes(type);
