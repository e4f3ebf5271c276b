import type { CallSummary } from './api-types';
import { tryOf, waterfallOf } from './waterfall';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function call(seq: number, queued: number, started: number | null, finished: number | null, more: Partial<CallSummary> = {}): CallSummary {
  return {
    id: `c${seq}`, seq, stage: 'ROAST', role: 'vc', provider: 'replay', model: 'm', label: null, attempt: 1, retry: 0, retry_of: null,
    status: finished === null ? 'running' : 'completed', valid: true, error: null, error_code: null, input_tokens: 10, output_tokens: 5,
    cost_usd: 0.01, cost_source: 'table', latency_ms: null, created_at: at(queued), started_at: started === null ? null : at(started),
    finished_at: finished === null ? null : at(finished), ...more,
  } as CallSummary;
}

describe('waterfallOf', () => {
  it('puts calls queued together (the five judges) in five lanes side by side, and calls one after another in one', () => {
    const judges = [1, 2, 3, 4, 5].map((i) => call(i, 0, i, i + 1));
    const moderator = call(6, 10, 10, 12);
    const w = waterfallOf([moderator, ...judges], T0 + 60_000);
    expect(w.lanes).toBe(5);
    expect(w.bars.map((b) => [b.call.id, b.lane])).toEqual([['c1', 0], ['c2', 1], ['c3', 2], ['c4', 3], ['c5', 4], ['c6', 0]]);
    expect(w.domain).toEqual([T0, T0 + 12_000]);
  });

  it('ends a bar still queued or running at now, and keeps its start unknown while queued', () => {
    const w = waterfallOf([call(1, 0, null, null), call(2, 1, 2, null)], T0 + 5000);
    expect(w.bars.map((b) => [b.started, b.finished, b.end])).toEqual([[null, null, T0 + 5000], [T0 + 2000, null, T0 + 5000]]);
    expect(w.lanes).toBe(2);
  });

  it('marks retries and repairs, and leaves out a call with no time at all', () => {
    expect(tryOf({ retry: 1, retry_of: 'c1', attempt: 1 })).toBe('retry');
    expect(tryOf({ retry: 0, retry_of: null, attempt: 2 })).toBe('repair');
    expect(tryOf({ retry: 0, retry_of: null, attempt: 1 })).toBe('first');
    const w = waterfallOf([call(1, 0, 0, 1), { ...call(2, 0, null, null), created_at: null }], T0);
    expect(w.bars).toHaveLength(1);
    expect(waterfallOf([], T0)).toEqual({ bars: [], lanes: 0, domain: null });
  });
});
