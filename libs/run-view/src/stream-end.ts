import type { RunEventType } from '@roundtable/contracts';

/**
 * Where the api ends a run's event stream (apps/api/src/stream-end.ts): a terminal event, or the
 * end of a finished panel's appeal, whose events come after run_completed. The contracts'
 * TERMINAL_EVENT_TYPES plus appeal_completed, restated so that the CLI's start and the browser
 * bundle load no zod (a spec holds the two equal). A follower whose stream closes after one of
 * these has not dropped.
 */
export const STREAM_END_TYPES: readonly RunEventType[] = ['run_completed', 'run_failed', 'run_cancelled', 'appeal_completed'];

// Stryker disable next-line ConditionalExpression: the typeof guard only narrows the type, includes() is false for null and undefined too (`false` is killed)
export const endsStream = (type: string | null | undefined): boolean => typeof type === 'string' && (STREAM_END_TYPES as readonly string[]).includes(type);
