import type { Redis } from 'ioredis';
import { createRedisConnection, type RedisClient } from '@roundtable/queues';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL } from '@roundtable/testing';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The write quota's bucket against the real Redis, each test under its own key prefix. */
describe('RedisTokenBucketStorage', () => {
  let redis: RedisClient;
  let other: RedisClient;
  let prefix: string;

  beforeAll(() => {
    redis = createRedisConnection(TEST_REDIS_URL);
    other = createRedisConnection(TEST_REDIS_URL);
  });
  beforeEach(() => {
    prefix = randomQueuePrefix('rt_test_bucket');
  });
  afterEach(async () => {
    await deleteRedisPrefix(redis, prefix);
  });
  afterAll(async () => {
    await Promise.all([redis.quit(), other.quit()]);
  });

  it('takes a burst of the limit, then refuses with the seconds until the next token, spending nothing', async () => {
    const storage = new RedisTokenBucketStorage(redis);
    const key = `${prefix}:ci`;
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(await storage.increment(key, 60_000, 3, 60_000, 'writes'));
    expect(taken).toEqual([
      { totalHits: 1, timeToExpire: 20, isBlocked: false, timeToBlockExpire: 0 },
      { totalHits: 2, timeToExpire: 40, isBlocked: false, timeToBlockExpire: 0 },
      { totalHits: 3, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 },
    ]);
    // 3 a minute: one token every 20 s, and the fourth write is that far away (a fixed window would say 60 s).
    for (let i = 0; i < 2; i++) {
      expect(await storage.increment(key, 60_000, 3, 60_000, 'writes')).toEqual({ totalHits: 4, timeToExpire: 60, isBlocked: true, timeToBlockExpire: 20 });
    }
    // Other keys, and other throttlers on the same key, have their own bucket.
    expect((await storage.increment(`${prefix}:dash`, 60_000, 3, 60_000, 'writes')).isBlocked).toBe(false);
    expect((await storage.increment(key, 60_000, 3, 60_000, 'other')).isBlocked).toBe(false);
  });

  it('refills one token every ttl / limit, up to the limit and never beyond', async () => {
    // 10 in 4 s: a token every 400 ms. The bucket runs on Redis' clock (the script reads TIME), and so does this
    // test, never on this process's: on a loaded machine its round trips stretch and its timers fire late (eleven
    // writes one after another once took over 400 ms, and a token came back before the eleventh). So the writes go
    // in batches, each between two reads of Redis' TIME, and are held to what that clock allows: the first writes
    // take every whole token the bucket held when Redis began the batch, and no more are taken than it held when
    // Redis finished it. The waits are measured on Redis' clock too. The counts in the comments below are those
    // bounds when nothing stalls; were this process to stall before a batch, Redis' clock would move them, and the
    // bucket must follow. A batch leaves in one socket write (auto-pipelining): no stall can fall inside it.
    // The test's Redis is a single server (TEST_REDIS_URL), so its connection is a plain client.
    const piped = (redis as Redis).duplicate({ enableAutoPipelining: true });
    const storage = new RedisTokenBucketStorage(piped);
    const key = `${prefix}:fast`;
    const limit = 10;
    const ttlMs = 4_000;
    const tokenUs = (ttlMs * 1000) / limit;
    const token = ttlMs * 1000; // one token of the bucket's level (token·µs, see the storage), which refills `limit` a µs
    const full = limit * token;
    let record = { level: full, at: 0 }; // no key yet: a full bucket

    const redisNowUs = async () => {
      const [s, us] = await piped.time();
      return Number(s) * 1_000_000 + Number(us);
    };
    /** Waits until Redis' clock is `us` past the last write the bucket took. */
    const waitOnRedisClock = async (us: number) => {
      for (let left = us; left > 0; left = record.at + us - (await redisNowUs())) await sleep(Math.ceil(left / 1000));
    };
    /** Sends `n` writes at once and holds them to Redis' clock; returns the bounds, in whole tokens. */
    const batch = async (n: number) => {
      const [from, results, to, [level, at]] = await Promise.all([
        redisNowUs(),
        Promise.all(Array.from({ length: n }, () => storage.increment(key, ttlMs, limit, 0, 'writes'))),
        redisNowUs(),
        piped.hmget(`${key}:writes`, 'level', 'at'),
      ]);
      // The bucket when Redis began the batch: the last record's level, refilled since its time, never above full.
      const levelFrom = Math.min(full, record.level + Math.max(0, from - record.at) * limit);
      const atStart = Math.floor(levelFrom / token);
      const atMost = Math.floor((levelFrom + (to - from) * limit) / token);
      // The record after it: the level, and Redis' time (µs) of the last write taken. No key: the bucket is full.
      record = level === null || at === null ? { level: full, at: to } : { level: Number(level), at: Number(at) };

      const refused = results.map((r) => r.isBlocked);
      expect(refused.slice(0, atStart)).toEqual(Array<boolean>(Math.min(n, atStart)).fill(false));
      expect(refused.filter((r) => !r).length).toBeLessThanOrEqual(atMost);
      // A refused write is told the next token is under 400 ms away, in whole seconds: 1.
      for (const r of results.filter((x) => x.isBlocked)) expect(r).toMatchObject({ totalHits: limit + 1, isBlocked: true, timeToBlockExpire: 1 });
      return { atStart, atMost };
    };

    try {
      // A burst from the full bucket: ten writes taken, the eleventh refused.
      expect(await batch(limit + 1)).toMatchObject({ atStart: limit, atMost: limit });

      // A token and a half later: one token is back, one write taken, the next refused.
      await waitOnRedisClock(1.5 * tokenUs);
      expect((await batch(2)).atStart).toBeGreaterThanOrEqual(1);

      // The half token left and two tokens' time more: two and a half, two writes taken, the third refused.
      await waitOnRedisClock(2 * tokenUs);
      expect((await batch(3)).atStart).toBeGreaterThanOrEqual(2);

      // Longer than the bucket takes to fill (11.5 tokens' time): never beyond the limit, ten writes, then refused.
      await waitOnRedisClock(11.5 * tokenUs);
      expect(await batch(limit + 1)).toMatchObject({ atStart: limit, atMost: limit });
    } finally {
      await piped.quit();
    }
  });

  it('is one bucket for two storages on two connections, as for two api replicas', async () => {
    const a = new RedisTokenBucketStorage(redis);
    const b = new RedisTokenBucketStorage(other);
    const key = `${prefix}:token:ci`;
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await (i % 2 ? b : a).increment(key, 60_000, 4, 60_000, 'writes'));
    expect(hits.map((h) => [h.totalHits, h.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
    ]);
    expect(await a.increment(key, 60_000, 4, 60_000, 'writes')).toMatchObject({ isBlocked: true, timeToBlockExpire: 15 });
    expect(await b.increment(key, 60_000, 4, 60_000, 'writes')).toMatchObject({ isBlocked: true, timeToBlockExpire: 15 });
  });

  it('keeps a key only until its bucket would be full again', async () => {
    const storage = new RedisTokenBucketStorage(redis);
    const key = `${prefix}:expiring`;
    await storage.increment(key, 60_000, 3, 0, 'writes');
    await storage.increment(key, 60_000, 3, 0, 'writes');
    const ttl = await redis.pttl(`${key}:writes`);
    expect(ttl).toBeGreaterThan(39_000);
    expect(ttl).toBeLessThanOrEqual(40_000);
  });

  it('refuses a ttl or limit that is no bucket, naming both', async () => {
    const storage = new RedisTokenBucketStorage(redis);
    await expect(storage.increment(`${prefix}:k`, 60_000, 0, 0, 'writes')).rejects.toThrow('ttl (60000 ms) and limit (0) must be whole numbers above 0');
  });
});
