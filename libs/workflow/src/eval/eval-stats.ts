/**
 * The statistics an eval's summary reports (issue 25): a pass rate's interval, whether two
 * configurations differ on the tasks both scored, and by how much. Pure and deterministic: the
 * bootstrap draws from a seeded generator, so the same cells always give the same interval.
 */

/** The z of a two-sided 95 % interval. */
export const Z_95 = 1.96;

/**
 * The Wilson score interval of `passed` successes in `n` trials, clamped to [0, 1].
 * Wilson rather than the normal approximation: it stays inside [0, 1] and is honest at 0/n and
 * n/n, which small suites hit often. With n = 0 there is no rate to bound: null (as
 * EvalConfigSummary.interval is).
 */
export function wilsonInterval(passed: number, n: number, z = Z_95): [number, number] | null {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`wilsonInterval: n must be a whole number ≥ 0, got ${n}`);
  if (!Number.isInteger(passed) || passed < 0 || passed > n) throw new RangeError(`wilsonInterval: passed must be a whole number from 0 to n (${n}), got ${passed}`);
  if (n === 0) return null;
  const p = passed / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0/n and n/n the bound is exactly 0 or 1; floating point may land a hair outside.
  const lo = passed === 0 ? 0 : Math.max(0, centre - half);
  const hi = passed === n ? 1 : Math.min(1, centre + half);
  return [lo, hi];
}

/**
 * The exact McNemar test, two-sided: under "neither configuration is better" each discordant
 * task (solved by one and not the other) is a fair coin, so the p-value is twice the binomial
 * tail of the smaller count, capped at 1. No discordant task at all: p = 1.
 * Summed in log space so a large n neither underflows 2^-n nor overflows C(n, k).
 */
export function mcnemarExact(aOnly: number, bOnly: number): number {
  for (const [name, v] of [['aOnly', aOnly], ['bOnly', bOnly]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`mcnemarExact: ${name} must be a whole number ≥ 0, got ${v}`);
  }
  const n = aOnly + bOnly;
  if (n === 0) return 1;
  const k = Math.min(aOnly, bOnly);
  let logTerm = -n * Math.LN2; // log(C(n, 0) / 2^n)
  let tail = 0;
  for (let i = 0; i <= k; i++) {
    tail += Math.exp(logTerm);
    logTerm += Math.log((n - i) / (i + 1));
  }
  return Math.min(1, 2 * tail);
}

/**
 * mulberry32: a tiny 32-bit generator, good enough for resampling and the same on every
 * platform. Returns floats in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from text (FNV-1a over its UTF-16 code units): a pair's names give its bootstrap seed. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface BootstrapOptions {
  resamples?: number;
  seed: number;
}

export interface PairedDiff {
  /** Pass rate of a minus that of b over the pairs. */
  diff: number;
  /** The 95 % percentile interval of diff over the resamples. */
  interval: [number, number];
}

/**
 * The paired bootstrap of the difference in pass rate: resample tasks (a pair is one task under
 * both configurations) with replacement, and take the 2.5th and 97.5th percentiles of the
 * resampled differences. Pairing keeps a task's difficulty out of the comparison.
 * No pairs: diff 0 and the whole range [-1, 1], since nothing rules any difference out.
 */
export function pairedBootstrapDiff(pairs: readonly (readonly [boolean, boolean])[], opts: BootstrapOptions): PairedDiff {
  const resamples = opts.resamples ?? 2000;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`pairedBootstrapDiff: resamples must be a whole number ≥ 1, got ${resamples}`);
  const n = pairs.length;
  if (n === 0) return { diff: 0, interval: [-1, 1] };
  // Each task contributes +1 (a only), -1 (b only) or 0; the diff is their mean.
  const d = pairs.map(([a, b]) => Number(a) - Number(b));
  const diff = d.reduce((s, x) => s + x, 0) / n;
  const random = mulberry32(opts.seed);
  const diffs = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(random() * n)];
    diffs[r] = s / n;
  }
  diffs.sort((x, y) => x - y);
  const lo = diffs[Math.floor(0.025 * resamples)];
  const hi = diffs[Math.max(0, Math.ceil(0.975 * resamples) - 1)];
  return { diff, interval: [lo, hi] };
}
