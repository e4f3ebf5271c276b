export type Take = { ok: true; remaining: number } | { ok: false; retryAfterS: number };

/**
 * One token bucket per key (a token's name, or a client address): `perMinute` tokens, refilled
 * continuously, so a client may burst a minute's allowance and then writes at the steady rate. Held
 * in memory per replica: with N api replicas a client can reach N times the rate, which is a
 * throttle's job, not a quota's.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {
    this.perMs = perMinute / 60_000;
  }

  take(key: string): Take {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.perMinute, at: t };
    b.tokens = Math.min(this.perMinute, b.tokens + (t - b.at) * this.perMs);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      this.remember(key, b);
      return { ok: true, remaining: Math.floor(b.tokens) };
    }
    this.remember(key, b);
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)) };
  }

  private remember(key: string, b: { tokens: number; at: number }): void {
    this.buckets.set(key, b);
    if (this.buckets.size <= this.maxKeys) return;
    // A bucket that would be full by now is the same as no bucket: forget those first.
    const t = this.now();
    for (const [k, v] of this.buckets) if (v.tokens + (t - v.at) * this.perMs >= this.perMinute) this.buckets.delete(k);
  }
}
