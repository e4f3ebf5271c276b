import type { NextFunction, Request, Response } from 'express';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { ApiError } from './api-error';
import { isWrite, principalOf } from './bearer-auth.middleware';

/** The quota's window: RATE_LIMIT_WRITES_PER_MIN writes in any one minute that starts with a key's first write. */
export const WRITE_QUOTA_WINDOW_MS = 60_000;
/** The throttler's name: the storage puts it in the Redis key beside ours. */
const THROTTLER = 'writes';

/**
 * RATE_LIMIT_WRITES_PER_MIN per token on write routes (per client address when the API runs open);
 * reads, the event stream and Bull Board's polling are not limited. Over the limit: 429 with Retry-After in seconds.
 *
 * The count lives in @nestjs/throttler's storage, given the Redis storage (@nest-lab/throttler-storage-redis:
 * one atomic script per hit), so every api replica spends the same quota; a count in each process let a
 * client reach N times the limit through N replicas. The keys carry QUEUE_PREFIX, as every other key of a
 * deployment does, so two deployments (or two test runs) on one Redis never share a quota: the storage writes
 * `{<QUEUE_PREFIX>:write-quota:token:<name>:writes}:hits` (and `…:blocked`), each expiring with its window or its block.
 *
 * A middleware, not the library's ThrottlerGuard: a guard runs after the body parsers and never sees Bull Board
 * (mounted as an Express router), and this door must refuse before a body is read, mounted after bearerAuth so an
 * anonymous request is refused before it can spend anyone's quota.
 */
export function writeRateLimit(opts: { perMinute: number; storage: ThrottlerStorage; prefix: string }) {
  const { perMinute, storage, prefix } = opts;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (perMinute === 0 || !isWrite(req)) return next();
    const principal = principalOf(res);
    const key = principal && principal.name !== 'anonymous' ? `token:${principal.name}` : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
    // Blocked for the rest of a window as long as the window itself: Retry-After is then when a write is taken again.
    storage.increment(`${prefix}:write-quota:${key}`, WRITE_QUOTA_WINDOW_MS, perMinute, WRITE_QUOTA_WINDOW_MS, THROTTLER).then((hit) => {
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
