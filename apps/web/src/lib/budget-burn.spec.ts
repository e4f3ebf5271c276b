import type { CallSummary, RunCaps } from './api-types';
import { burnCharts, burnSeries } from './budget-burn';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const call = (seq: number, finished: number | null, tokens: number, usd: number | null) =>
  ({ id: `c${seq}`, seq, created_at: at(0), started_at: at(0), finished_at: finished === null ? null : at(finished), input_tokens: tokens, output_tokens: 0, cost_usd: usd }) as CallSummary;
const caps: RunCaps = { max_calls: 10, max_tokens: 1000, max_cost_usd: null, max_seconds: 60, max_rounds: 3, max_fix_rounds: 2, per_provider: {} };

describe('burnSeries', () => {
  it('sums calls, tokens, known prices and seconds since the start, in finishing order; a call still running is not counted', () => {
    const points = burnSeries([call(2, 20, 50, null), call(1, 10, 100, 0.5), call(3, null, 999, 9)], T0);
    expect(points).toEqual([
      { at: T0 + 10_000, calls: 1, tokens: 100, usd: 0.5, seconds: 10 },
      { at: T0 + 20_000, calls: 2, tokens: 150, usd: 0.5, seconds: 20 },
    ]);
  });

  it('counts from the first call queued when the run start is unknown', () => {
    expect(burnSeries([call(1, 4, 1, 0)], null)[0].seconds).toBe(4);
  });
});

describe('burnCharts', () => {
  it('draws each measure from zero at the start, against its cap (or its last value when it has none)', () => {
    const charts = burnCharts(burnSeries([call(1, 10, 100, 0.5)], T0), caps, T0);
    expect(charts.map((c) => [c.measure, c.cap, c.top])).toEqual([['calls', 10, 10], ['tokens', 1000, 1000], ['usd', null, 1], ['seconds', 60, 60]]);
    expect(charts[1].points).toEqual([{ at: T0, value: 0 }, { at: T0 + 10_000, value: 100 }]);
    expect(burnCharts([], null, null).every((c) => c.points.length === 1 && c.cap === null)).toBe(true);
  });
});
