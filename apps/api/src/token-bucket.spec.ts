import { TokenBuckets } from './token-bucket';

describe('TokenBuckets', () => {
  it('lets a key burst its minute allowance, then refuses with the seconds until the next token', () => {
    let now = 0;
    const b = new TokenBuckets(3, () => now);
    expect([b.take('ci'), b.take('ci'), b.take('ci')].map((t) => t.ok)).toEqual([true, true, true]);
    expect(b.take('ci')).toEqual({ ok: false, retryAfterS: 20 });
    // Other keys have their own bucket.
    expect(b.take('dash').ok).toBe(true);
    now = 19_000;
    expect(b.take('ci')).toEqual({ ok: false, retryAfterS: 1 });
    now = 20_000;
    expect(b.take('ci')).toEqual({ ok: true, remaining: 0 });
  });

  it('refills continuously up to the allowance, never beyond', () => {
    let now = 0;
    const b = new TokenBuckets(60, () => now);
    for (let i = 0; i < 60; i++) b.take('k');
    expect(b.take('k').ok).toBe(false);
    now += 10 * 60_000;
    const results = Array.from({ length: 61 }, () => b.take('k').ok);
    expect(results.filter(Boolean)).toHaveLength(60);
  });

  it('forgets full buckets once it holds too many keys', () => {
    let now = 0;
    const b = new TokenBuckets(1, () => now, 2);
    b.take('a');
    b.take('b');
    now = 120_000; // a and b are full again
    b.take('c');
    expect((b as unknown as { buckets: Map<string, unknown> }).buckets.size).toBe(1);
  });
});
