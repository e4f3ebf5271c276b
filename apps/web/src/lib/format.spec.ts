import { fmtAge, fmtCost, fmtDuration } from './format';

describe('format', () => {
  it('never shows an unknown cost as $0', () => {
    expect(fmtCost(null)).toBe('—');
    expect(fmtCost(0.0042)).toBe('$0.0042');
    expect(fmtCost(1.5)).toBe('$1.50');
    expect(fmtCost(0)).toBe('$0.00');
  });

  it('reads durations and ages', () => {
    expect(fmtDuration(420)).toBe('420 ms');
    expect(fmtDuration(12_300)).toBe('12.3 s');
    expect(fmtAge('2026-01-01T00:00:00Z', Date.parse('2026-01-01T02:30:00Z'))).toBe('2 h');
    expect(fmtAge(null, 0)).toBe('—');
  });
});
