import { mcnemarExact, mulberry32, pairedBootstrapDiff, seedOf, wilsonInterval } from './eval-stats';

describe('wilsonInterval', () => {
  it('matches the textbook values', () => {
    const [lo, hi] = wilsonInterval(6, 20)!;
    expect(lo).toBeCloseTo(0.145, 3);
    expect(hi).toBeCloseTo(0.519, 3);
    const [lo2, hi2] = wilsonInterval(15, 20)!;
    expect(lo2).toBeCloseTo(0.531, 3);
    expect(hi2).toBeCloseTo(0.888, 3);
  });

  it('is exact at the ends: n/n reaches 1, 0/n reaches 0', () => {
    const [lo, hi] = wilsonInterval(20, 20)!;
    expect(lo).toBeCloseTo(0.839, 3);
    expect(hi).toBe(1);
    const [lo0, hi0] = wilsonInterval(0, 20)!;
    expect(lo0).toBe(0);
    expect(hi0).toBeCloseTo(0.161, 3);
  });

  it('is null when nothing was scored', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it('narrows with a smaller z', () => {
    const [lo95, hi95] = wilsonInterval(6, 20)!;
    const [lo68, hi68] = wilsonInterval(6, 20, 1)!;
    expect(lo68).toBeGreaterThan(lo95);
    expect(hi68).toBeLessThan(hi95);
  });

  it('refuses counts that are not counts', () => {
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1, 2.5)).toThrow(RangeError);
  });
});

describe('mcnemarExact', () => {
  it('14 vs 0 is 2 / 2^14', () => {
    expect(mcnemarExact(14, 0)).toBeCloseTo(0.000122, 6);
    expect(mcnemarExact(0, 14)).toBeCloseTo(0.000122, 6);
  });

  it('7 vs 0 is 0.016 (2 / 128)', () => {
    expect(mcnemarExact(7, 0)).toBeCloseTo(0.015625, 9);
  });

  it('is symmetric and capped at 1', () => {
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(5, 2)).toBeCloseTo(mcnemarExact(2, 5), 12);
    // 2 · P(X ≤ 2 | n=7) = 2 · 29/128
    expect(mcnemarExact(5, 2)).toBeCloseTo(58 / 128, 12);
  });

  it('is 1 with no discordant task', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
  });

  it('stays finite for large counts', () => {
    const p = mcnemarExact(900, 1100);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-4);
  });

  it('refuses negative or fractional counts', () => {
    expect(() => mcnemarExact(-1, 0)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 0)).toThrow(RangeError);
  });
});

describe('mulberry32 and seedOf', () => {
  it('gives the same stream for the same seed, in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 100 }, () => a());
    expect(xs).toEqual(Array.from({ length: 100 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mulberry32(43)()).not.toBe(xs[0]);
  });

  it('seeds differ by text and are 32-bit', () => {
    expect(seedOf('team\u0000solo')).toBe(seedOf('team\u0000solo'));
    expect(seedOf('team\u0000solo')).not.toBe(seedOf('solo\u0000team'));
    expect(Number.isInteger(seedOf('x')) && seedOf('x') >= 0 && seedOf('x') < 2 ** 32).toBe(true);
  });
});

describe('pairedBootstrapDiff', () => {
  const pairs = (bothPass: number, aOnly: number, bOnly: number, neither: number): [boolean, boolean][] => [
    ...Array.from({ length: bothPass }, (): [boolean, boolean] => [true, true]),
    ...Array.from({ length: aOnly }, (): [boolean, boolean] => [true, false]),
    ...Array.from({ length: bOnly }, (): [boolean, boolean] => [false, true]),
    ...Array.from({ length: neither }, (): [boolean, boolean] => [false, false]),
  ];

  it('reports the observed difference and an interval around it', () => {
    const r = pairedBootstrapDiff(pairs(8, 7, 0, 5), { seed: 1 });
    expect(r.diff).toBeCloseTo(0.35, 12);
    expect(r.interval[0]).toBeGreaterThan(0);
    expect(r.interval[0]).toBeLessThanOrEqual(0.35);
    expect(r.interval[1]).toBeGreaterThanOrEqual(0.35);
    expect(r.interval[1]).toBeLessThanOrEqual(1);
  });

  it('is deterministic for a seed', () => {
    const p = pairs(5, 3, 2, 10);
    expect(pairedBootstrapDiff(p, { seed: 7 })).toEqual(pairedBootstrapDiff(p, { seed: 7 }));
  });

  it('straddles 0 when the configurations trade wins', () => {
    const r = pairedBootstrapDiff(pairs(5, 3, 3, 9), { seed: 3, resamples: 500 });
    expect(r.diff).toBe(0);
    expect(r.interval[0]).toBeLessThan(0);
    expect(r.interval[1]).toBeGreaterThan(0);
  });

  it('is a point when every task agrees', () => {
    expect(pairedBootstrapDiff(pairs(4, 0, 0, 6), { seed: 9 })).toEqual({ diff: 0, interval: [0, 0] });
  });

  it('with no pairs rules nothing out', () => {
    expect(pairedBootstrapDiff([], { seed: 1 })).toEqual({ diff: 0, interval: [-1, 1] });
  });

  it('refuses a resample count below 1', () => {
    expect(() => pairedBootstrapDiff(pairs(1, 0, 0, 0), { seed: 1, resamples: 0 })).toThrow(RangeError);
  });
});
