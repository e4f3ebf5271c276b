import type { CallView, RunView, TestRunView } from './run-view';
import { isEndedStatus } from './run-statuses';

/** What the terminal's progress line and the run page's header both ask of a view. */

export const pendingCalls = (view: RunView): CallView[] => view.calls.filter((c) => c.state === 'queued');

/** Seconds from the run's start to its latest event: the events' own clock, so replay and live agree. */
export function elapsedSeconds(view: RunView): number | null {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a missing time parses to NaN, which returns null below as well (`if (true)` is killed)
  if (view.startedAt === null || view.lastEventAt === null) return null;
  const span = Date.parse(view.lastEventAt) - Date.parse(view.startedAt);
  return Number.isNaN(span) ? null : Math.max(0, span / 1000);
}

/** The run has reached an end (it may still resume, or a panel take an appeal). */
export const hasEnded = (view: RunView): boolean => isEndedStatus(view.status);

/**
 * Where a test run stands: finished (its tests_completed came), running, or unfinished: it started
 * but the run ended first (cancelled, halted, failed mid-run), so no result will come and it must
 * not show as running forever (the test-runner wrote no row; the report says none ran).
 */
export type TestRunState = 'finished' | 'running' | 'unfinished';

export const testRunState = (view: RunView, test: TestRunView): TestRunState =>
  test.result !== null ? 'finished' : hasEnded(view) ? 'unfinished' : 'running';

/** The call's duration in ms: its own latency when the provider measured one, else queue to end. */
export function callDurationMs(call: CallView): number | null {
  if (call.latencyMs !== null) return call.latencyMs;
  // Stryker disable next-line ConditionalExpression: a missing end parses to NaN, which returns null below as well (`if (true)` is killed)
  if (call.finishedAt === null) return null;
  const span = Date.parse(call.finishedAt) - Date.parse(call.queuedAt);
  return Number.isNaN(span) ? null : span;
}

/** What a count past its cap says: after a halt the closing role's one call is exempt from the budget. */
export const CLOSING_CALL_PAST_CAP = 'the closing call, allowed past the cap';

/** The note for a calls count above its cap ("4 of 3"), or null when within it or uncapped. */
export const callsPastCapNote = (calls: number | null | undefined, cap: number | null | undefined): string | null =>
  typeof calls === 'number' && typeof cap === 'number' && calls > cap ? CLOSING_CALL_PAST_CAP : null;
