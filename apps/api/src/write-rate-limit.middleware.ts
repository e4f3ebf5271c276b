import type { NextFunction, Request, Response } from 'express';
import { Logger } from '@nestjs/common';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import { ApiError } from './api-error';
import { isWrite, principalOf } from './bearer-auth.middleware';
import { within } from './within';

/** A full bucket (RATE_LIMIT_WRITES_PER_MIN writes) refills in a minute: one write every 60 / limit s. */
export const WRITE_QUOTA_REFILL_MS = 60_000;
/** The throttler's name: the storage puts it in the Redis key after ours. */
const THROTTLER = 'writes';
/** No block beyond the bucket's own refusal: a refused write is taken again as soon as a token is back. */
const NO_BLOCK = 0;
/** How long a write waits for its bucket in Redis before it is counted in this replica instead. */
export const QUOTA_REDIS_WAIT_MS = 500;
/** A Redis outage is said once per this while, not once per write. */
const OUTAGE_LOG_EVERY_MS = 10_000;

/**
 * RATE_LIMIT_WRITES_PER_MIN per token on write routes (per client address when the API runs open);
 * reads, the event stream and Bull Board's polling are not limited. Over the limit: 429 with Retry-After in seconds.
 *
 * A token bucket per key: a client may burst a minute's allowance, then writes at the steady rate, and a refused
 * write is told the seconds until its next token. The bucket lives in Redis behind @nestjs/throttler's storage
 * interface (RedisTokenBucketStorage: one atomic script per hit, on Redis' clock), so every api replica spends
 * the same quota; a bucket in each process let a client reach N times the limit through N replicas. The keys
 * carry QUEUE_PREFIX, as every other key of a deployment does, so two deployments (or two test runs) on one Redis
 * never share a quota: `<QUEUE_PREFIX>:write-quota:token:<name>:writes`, expiring when its bucket is full again.
 *
 * A middleware, not the library's ThrottlerGuard: a guard runs after the body parsers and never sees Bull Board
 * (mounted as an Express router), and this door must refuse before a body is read, mounted after bearerAuth so an
 * anonymous request is refused before it can spend anyone's quota.
 *
 * Redis away (no answer in QUOTA_REDIS_WAIT_MS, or an error): the write is counted in this replica's own memory
 * (@nestjs/throttler's in-process storage, same limit) and the outage is logged. Not a 503: a submit is built to be
 * stored while Redis is away (the outbox sends its job later), and refusing every write for a counter would turn a
 * Redis blip into an api outage. Not unlimited either: each replica still holds the limit, so at worst a client gets
 * N times the limit through N replicas for as long as Redis is gone, never an unmetered stream.
 */
export function writeRateLimit(opts: { perMinute: number; storage: ThrottlerStorage; prefix: string; fallback?: ThrottlerStorage; redisWaitMs?: number }) {
  const { perMinute, storage, prefix } = opts;
  const fallback = opts.fallback ?? new ThrottlerStorageService();
  const waitMs = opts.redisWaitMs ?? QUOTA_REDIS_WAIT_MS;
  const log = new Logger('api');
  let loggedAt = 0;
  const take = async (key: string) => {
    const args = [key, WRITE_QUOTA_REFILL_MS, perMinute, NO_BLOCK, THROTTLER] as const;
    // A late answer or failure is dropped: the write has been counted in memory already.
    const answer = await within(storage.increment(...args), waitMs, () => undefined).catch((e: Error) => ({ done: false as const, reason: e.message }));
    if (answer.done) return answer.value;
    if (Date.now() - loggedAt > OUTAGE_LOG_EVERY_MS) {
      loggedAt = Date.now();
      const reason = 'reason' in answer ? answer.reason : `no answer from Redis in ${waitMs} ms`;
      log.warn(`write quota: Redis (REDIS_URL) did not answer (${reason}); counting writes in this replica until it does`);
    }
    return fallback.increment(...args);
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    if (perMinute === 0 || !isWrite(req)) return next();
    const principal = principalOf(res);
    const key = principal && principal.name !== 'anonymous' ? `token:${principal.name}` : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
    take(`${prefix}:write-quota:${key}`).then((hit) => {
      if (!hit.isBlocked) {
        res.setHeader('RateLimit-Limit', String(perMinute));
        res.setHeader('RateLimit-Remaining', String(Math.max(0, perMinute - hit.totalHits)));
        return next();
      }
      const retryAfterS = Math.max(1, hit.timeToBlockExpire);
      res.setHeader('Retry-After', String(retryAfterS));
      const who = key.startsWith('token:') ? `token ${principal!.name}` : 'this client';
      next(new ApiError(429, { error: 'rate_limited', message: `more than ${perMinute} writes a minute from ${who}; try again in ${retryAfterS} s` }));
    }, next);
  };
}
