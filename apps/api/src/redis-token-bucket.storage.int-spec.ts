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
    const storage = new RedisTokenBucketStorage(redis);
    const key = `${prefix}:fast`;
    // 10 in 4 s: a token every 400 ms (wide enough that a busy CI machine's timer drift, ±200 ms, lands on the same count).
    for (let i = 0; i < 10; i++) expect((await storage.increment(key, 4_000, 10, 0, 'writes')).isBlocked).toBe(false);
    const refused = await storage.increment(key, 4_000, 10, 0, 'writes');
    expect(refused).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });

    await sleep(1_000);
    const afterRefill = [];
    for (let i = 0; i < 3; i++) afterRefill.push((await storage.increment(key, 4_000, 10, 0, 'writes')).isBlocked);
    // Two and a half tokens came back in 1 s: two writes are taken, the third is not.
    expect(afterRefill).toEqual([false, false, true]);

    await sleep(4_200);
    const afterFull = [];
    for (let i = 0; i < 11; i++) afterFull.push((await storage.increment(key, 4_000, 10, 0, 'writes')).isBlocked);
    expect(afterFull.filter((blocked) => !blocked)).toHaveLength(10);
    expect(afterFull[10]).toBe(true);
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
