import { hasEnded, type RunView } from '@roundtable/run-view';
import type { RunDetail } from './api-types';

/** The run's usage as the page shows it: the header and the Budget panel read this one figure. */
export interface RunUsageFigures {
  calls: number;
  failedCalls: number;
  tokens: number;
  costUsd: number | null;
  unpricedCalls: number;
}

/**
 * Which usage the page shows, so the header and the Budget panel never disagree. While the run
 * goes on, the tally folded from the call events: it moves with the stream, and GET /v1/runs/:id
 * is refetched only after an event says a call ended, so it is always a step behind. Before the
 * stream has folded anything (a reload), the detail is all there is. Once the run has ended and the
 * detail has seen that end, the api's figures are the authority (as the CLI's closing line).
 */
export function runUsage(view: RunView, detail: Pick<RunDetail, 'status' | 'usage'> | null): RunUsageFigures {
  const u = detail?.usage;
  const detailIsCurrent = u !== undefined && (view.lastSequence === 0 || (hasEnded(view) && detail?.status === view.status));
  if (!detailIsCurrent) return { ...view.usage };
  return { calls: u.calls, failedCalls: u.failed_calls, tokens: u.tokens, costUsd: u.cost_usd, unpricedCalls: u.unpriced_calls };
}
