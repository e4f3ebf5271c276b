import type { CallSummary } from './api-types';

/** How a call came to be: a first try, a retry after a transient failure, or a repair of a reply that did not validate. */
export type CallTry = 'first' | 'retry' | 'repair';

export interface WaterfallBar {
  call: CallSummary;
  /** The row it is drawn in: calls whose spans overlap (the panel's five judges) each get their own. */
  lane: number;
  /** Epoch ms: queued (created_at), started (null while queued), finished (null while it runs). */
  queued: number;
  started: number | null;
  finished: number | null;
  /** Where the bar ends on the axis: finished, or `now` while the call is queued or running. */
  end: number;
  try: CallTry;
}

export interface Waterfall {
  bars: WaterfallBar[];
  lanes: number;
  /** The time axis' domain, epoch ms: the first call queued to the last end (or now). */
  domain: [number, number] | null;
}

const ms = (iso: string | null): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

export const tryOf = (c: Pick<CallSummary, 'retry' | 'retry_of' | 'attempt'>): CallTry => (c.retry > 0 || c.retry_of ? 'retry' : c.attempt > 1 ? 'repair' : 'first');

/**
 * One bar per call, on one time axis from queued to finished, packed into lanes: a call takes the
 * lowest lane free since it was queued, so calls in flight together (queued together, as the panel
 * dispatches its judges) sit side by side, and calls one after another share a row.
 */
export function waterfallOf(calls: readonly CallSummary[], now: number): Waterfall {
  const timed = calls
    .map((call) => ({ call, queued: ms(call.created_at) ?? ms(call.started_at) }))
    .filter((x): x is { call: CallSummary; queued: number } => x.queued !== null)
    .sort((a, b) => a.queued - b.queued || a.call.seq - b.call.seq);
  const laneEnds: number[] = [];
  const bars: WaterfallBar[] = timed.map(({ call, queued }) => {
    const started = ms(call.started_at);
    const finished = ms(call.finished_at);
    const end = Math.max(queued, finished ?? Math.max(now, started ?? queued));
    let lane = laneEnds.findIndex((e) => e <= queued);
    if (lane < 0) lane = laneEnds.length;
    laneEnds[lane] = end;
    return { call, lane, queued, started, finished, end, try: tryOf(call) };
  });
  const domain: [number, number] | null = bars.length ? [Math.min(...bars.map((b) => b.queued)), Math.max(...bars.map((b) => b.end))] : null;
  return { bars, lanes: laneEnds.length, domain };
}
