import type { CallSummary, RunCaps } from './api-types';

/** The run's spend after each finished call: what the budget counts, as it grew. */
export interface BurnPoint {
  /** Epoch ms the call finished. */
  at: number;
  calls: number;
  tokens: number;
  /** Known prices summed (an unpriced call adds nothing, as the api's cost_usd). */
  usd: number;
  /** Wall-clock seconds since the run started (the budget's max_seconds). */
  seconds: number;
}

export type BurnMeasure = 'calls' | 'tokens' | 'usd' | 'seconds';

export interface BurnChart {
  measure: BurnMeasure;
  name: string;
  cap: number | null;
  /** The points, with the origin (the run's start, all zero) first. */
  points: { at: number; value: number }[];
  /** The y axis' top: the cap or the last value, whichever is larger (at least 1). */
  top: number;
}

const CAP_OF: Record<BurnMeasure, keyof RunCaps> = { calls: 'max_calls', tokens: 'max_tokens', usd: 'max_cost_usd', seconds: 'max_seconds' };
const NAMES: Record<BurnMeasure, string> = { calls: 'Calls', tokens: 'Tokens', usd: 'Cost (USD)', seconds: 'Seconds' };

/**
 * The cumulative calls, tokens, USD and seconds after each call that ended (completed or failed,
 * as the budget counts them), in finishing order. `startedAt`: the run's start; the first call's
 * queue time when unknown.
 */
export function burnSeries(calls: readonly CallSummary[], startedAt: number | null): BurnPoint[] {
  const ended = calls
    .filter((c) => c.finished_at && Number.isFinite(Date.parse(c.finished_at)))
    .map((c) => ({ c, at: Date.parse(c.finished_at!) }))
    .sort((a, b) => a.at - b.at || a.c.seq - b.c.seq);
  const queuedAt = calls.map((c) => (c.created_at ? Date.parse(c.created_at) : NaN)).filter(Number.isFinite);
  const start = startedAt ?? (queuedAt.length ? Math.min(...queuedAt) : (ended[0]?.at ?? 0));
  let n = 0;
  let tokens = 0;
  let usd = 0;
  return ended.map(({ c, at }) => {
    n += 1;
    tokens += (c.input_tokens ?? 0) + (c.output_tokens ?? 0);
    usd += c.cost_usd ?? 0;
    return { at, calls: n, tokens, usd, seconds: Math.max(0, (at - start) / 1000) };
  });
}

/** The four small charts: each measure's line from the run's start, against its cap. */
export function burnCharts(points: readonly BurnPoint[], caps: RunCaps | null, startedAt: number | null): BurnChart[] {
  const origin = startedAt ?? points[0]?.at ?? 0;
  return (Object.keys(CAP_OF) as BurnMeasure[]).map((measure) => {
    const cap = (caps?.[CAP_OF[measure]] as number | null | undefined) ?? null;
    const line = [{ at: origin, value: 0 }, ...points.map((p) => ({ at: p.at, value: p[measure] }))];
    const last = line[line.length - 1].value;
    return { measure, name: NAMES[measure], cap, points: line, top: Math.max(1, cap ?? 0, last) };
  });
}
