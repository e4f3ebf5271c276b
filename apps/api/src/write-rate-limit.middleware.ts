import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-error';
import { isWrite, principalOf } from './bearer-auth.middleware';
import { TokenBuckets } from './token-bucket';

/**
 * RATE_LIMIT_WRITES_PER_MIN per token on write routes (per client address when the API runs open);
 * reads, the event stream and Bull Board's polling are not limited. Over the limit: 429 with Retry-After in seconds.
 * Mounted after bearerAuth, so an anonymous request is refused before it can spend anyone's bucket.
 */
export function writeRateLimit(perMinute: number) {
  const buckets = new TokenBuckets(perMinute);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (perMinute === 0 || !isWrite(req)) return next();
    const principal = principalOf(res);
    const key = principal && principal.name !== 'anonymous' ? `token:${principal.name}` : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
    const take = buckets.take(key);
    if (take.ok) {
      res.setHeader('RateLimit-Limit', String(perMinute));
      res.setHeader('RateLimit-Remaining', String(take.remaining));
      return next();
    }
    res.setHeader('Retry-After', String(take.retryAfterS));
    const who = key.startsWith('token:') ? `token ${principal!.name}` : 'this client';
    next(new ApiError(429, { error: 'rate_limited', message: `more than ${perMinute} writes a minute from ${who}; try again in ${take.retryAfterS} s` }));
  };
}
