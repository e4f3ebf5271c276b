/** Nearest-rank percentile (p in 0..100) of samples; NaN when there are none. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export interface LatencyFigures {
  /** Per-step latencies in ms. */
  samples: number[];
  /** Steps completed per second of wall time. */
  stepsPerSecond: number;
}

export const p50 = (f: LatencyFigures) => percentile(f.samples, 50);
export const p99 = (f: LatencyFigures) => percentile(f.samples, 99);
