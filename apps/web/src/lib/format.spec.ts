import { fmtAge, fmtCapFigure, fmtCost, fmtDuration } from './format';

describe('format', () => {
  it('never shows an unknown cost as $0', () => {
    expect(fmtCost(null)).toBe('—');
    expect(fmtCost(0.0042)).toBe('$0.0042');
    expect(fmtCost(1.5)).toBe('$1.50');
    expect(fmtCost(0)).toBe('$0.00');
  });

  it('reads every cost under a dollar at one precision, so a cost and its cap agree ($0.0090 of $0.0100, never of $0.01)', () => {
    expect(fmtCost(0.009)).toBe('$0.0090');
    expect(fmtCost(0.01)).toBe('$0.0100');
    expect(fmtCost(0.0123)).toBe('$0.0123');
    expect(fmtCost(0.5)).toBe('$0.5000');
    expect(fmtCost(5)).toBe('$5.00');
    const decimals = (s: string) => s.split('.')[1].length;
    for (const [a, b] of [[0.0042, 0.0099], [0.0099, 0.01], [0.01, 0.9999]]) expect(decimals(fmtCost(a))).toBe(decimals(fmtCost(b)));
  });

  it("shows a budget warning's figures as the Budget panel does: a cost cap in dollars, a count as a count", () => {
    expect(fmtCapFigure('max_cost_usd', 0.009)).toBe(fmtCost(0.009));
    expect(fmtCapFigure('per_provider.xai.max_cost_usd', 0.01)).toBe('$0.0100');
    expect(fmtCapFigure('max_tokens', 160000)).toBe('160,000');
    expect(fmtCapFigure('max_calls', 13)).toBe('13');
  });

  it('reads durations and ages', () => {
    expect(fmtDuration(420)).toBe('420 ms');
    expect(fmtDuration(12_300)).toBe('12.3 s');
    expect(fmtAge('2026-01-01T00:00:00Z', Date.parse('2026-01-01T02:30:00Z'))).toBe('2 h');
    expect(fmtAge(null, 0)).toBe('—');
  });
});
