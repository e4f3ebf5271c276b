import type { Request, Response } from 'express';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { ApiError } from './api-error';
import { WRITE_QUOTA_REFILL_MS, writeRateLimit } from './write-rate-limit.middleware';

/** A storage that refuses past `limit` hits (the door's part, not the bucket's: that is RedisTokenBucketStorage's int-spec), and remembers the keys it was asked for. */
function countingStorage(limit: number) {
  const hits = new Map<string, number>();
  const storage: ThrottlerStorage = {
    async increment(key, ttl, max, blockDuration, name) {
      expect({ ttl, max, blockDuration, name }).toEqual({ ttl: WRITE_QUOTA_REFILL_MS, max: limit, blockDuration: 0, name: 'writes' });
      const n = (hits.get(key) ?? 0) + 1;
      hits.set(key, n);
      return { totalHits: n, timeToExpire: 60, isBlocked: n > max, timeToBlockExpire: n > max ? 60 : 0 };
    },
  };
  return { storage, keys: () => [...hits.keys()] };
}

function request(method: string, principal: { name: string; role: 'write' | 'read' } | undefined, ip = '10.0.0.7') {
  const headers: Record<string, string> = {};
  const req = { method, ip, socket: {} } as unknown as Request;
  const res = { locals: { principal }, setHeader: (k: string, v: string) => (headers[k] = v) } as unknown as Response;
  return { req, res, headers };
}

const pass = (mw: ReturnType<typeof writeRateLimit>, r: ReturnType<typeof request>) =>
  new Promise<unknown>((resolve) => mw(r.req, r.res, (err?: unknown) => resolve(err ?? 'next')));

describe('writeRateLimit', () => {
  it('counts a token under its name and an open API client under its address, both under QUEUE_PREFIX', async () => {
    const { storage, keys } = countingStorage(2);
    const mw = writeRateLimit({ perMinute: 2, storage, prefix: 'rt_a' });
    expect(await pass(mw, request('POST', { name: 'ci', role: 'write' }))).toBe('next');
    expect(await pass(mw, request('POST', { name: 'anonymous', role: 'write' }, '10.0.0.9'))).toBe('next');
    expect(keys()).toEqual(['rt_a:write-quota:token:ci', 'rt_a:write-quota:ip:10.0.0.9']);
  });

  it('sets RateLimit headers on a taken write, and refuses past the limit with 429 and Retry-After', async () => {
    const { storage } = countingStorage(1);
    const mw = writeRateLimit({ perMinute: 1, storage, prefix: 'rt_b' });
    const first = request('POST', undefined);
    expect(await pass(mw, first)).toBe('next');
    expect(first.headers).toEqual({ 'RateLimit-Limit': '1', 'RateLimit-Remaining': '0' });
    const second = request('POST', undefined);
    const err = (await pass(mw, second)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(second.headers['Retry-After']).toBe('60');
    expect(err.getStatus()).toBe(429);
    expect(err.getResponse()).toEqual({ error: 'rate_limited', message: 'more than 1 writes a minute from this client; try again in 60 s' });
  });

  it('never counts reads, and counts nothing at 0', async () => {
    const { storage, keys } = countingStorage(1);
    const reads = writeRateLimit({ perMinute: 1, storage, prefix: 'rt_c' });
    for (const m of ['GET', 'HEAD', 'OPTIONS']) expect(await pass(reads, request(m, undefined))).toBe('next');
    const off = writeRateLimit({ perMinute: 0, storage, prefix: 'rt_c' });
    for (let i = 0; i < 3; i++) expect(await pass(off, request('POST', undefined))).toBe('next');
    expect(keys()).toEqual([]);
  });
});

describe('writeRateLimit with Redis away', () => {
  const hanging: ThrottlerStorage = { increment: () => new Promise(() => undefined) };
  const failing: ThrottlerStorage = { increment: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')) };

  it.each([
    ['does not answer', hanging],
    ['fails', failing],
  ])('counts in this replica when Redis %s: never a hang, never unlimited', async (_what, storage) => {
    const mw = writeRateLimit({ perMinute: 2, storage, prefix: 'rt_d', redisWaitMs: 50 });
    const started = Date.now();
    expect(await pass(mw, request('POST', { name: 'ci', role: 'write' }))).toBe('next');
    expect(await pass(mw, request('POST', { name: 'ci', role: 'write' }))).toBe('next');
    const third = (await pass(mw, request('POST', { name: 'ci', role: 'write' }))) as ApiError;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(third).toBeInstanceOf(ApiError);
    expect(third.getStatus()).toBe(429);
  });
});
