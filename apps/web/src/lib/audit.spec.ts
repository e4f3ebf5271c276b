import { fmtOutOf, fmtRate, histogramLabel, scopeText } from './audit';

describe('the audit page\'s words', () => {
  it('formats rates and counts out of a whole, with a dash for nothing', () => {
    expect(fmtRate(0.667)).toBe('67 %');
    expect(fmtRate(null)).toBe('—');
    expect(fmtOutOf({ count: 4, of: 6, rate: 0.667 })).toBe('4 of 6 (67 %)');
    expect(fmtOutOf({ count: 0, of: 0, rate: null })).toBe('—');
  });

  it('says what it read, and when older runs were left out', () => {
    expect(scopeText({ project: 'dd-demo', run_limit: 2000, runs: 1, truncated: false, build_runs: 1, panel_runs: 0 })).toBe(
      'Read the newest 1 run of project dd-demo (at most 2000): 1 with critiques, 0 with panel scores.',
    );
    expect(scopeText({ project: null, run_limit: 2000, runs: 2000, truncated: true, build_runs: 3, panel_runs: 4 })).toContain('older runs were left out');
  });

  it('reads a histogram out', () => {
    expect(histogramLabel([{ score: 1, count: 0 }, { score: 2, count: 3 }])).toBe('scores 1: 0, 2: 3');
  });
});
