import type { ThrottlerStorage } from '@nestjs/throttler';
import type { RedisClient } from '@roundtable/queues';

/**
 * Takes one token from a bucket in Redis, in one script so two replicas never both take the last token.
 * The bucket holds `level` in token·µs (one token = `period` µs of it, a full bucket = `limit` tokens) so
 * every number stays a whole one a Lua double holds exactly (limit × period µs < 2^53: e.g. 150 000 000 a
 * minute), and `at`, the Redis server's time (TIME, µs) when it was last taken from: the replicas' own
 * clocks may disagree, Redis' one clock does not. It refills at `limit` units per µs, a full bucket in
 * `period`. A refused take spends nothing. The key expires when the bucket would be full again, the same
 * as no key.
 * Replies { totalHits (limit + 1 when refused), seconds until full, refused 0/1, seconds until the next token }.
 */
const TAKE_TOKEN_LUA = `
local period = tonumber(ARGV[1]) * 1000
local limit = tonumber(ARGV[2])
local full = limit * period
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local level, at = unpack(redis.call('HMGET', KEYS[1], 'level', 'at'))
level = tonumber(level) or full
at = tonumber(at) or now
level = math.min(full, level + math.max(0, now - at) * limit)
if level < period then
  return { limit + 1, math.ceil((full - level) / limit / 1000000), 1, math.max(1, math.ceil((period - level) / limit / 1000000)) }
end
level = level - period
redis.call('HSET', KEYS[1], 'level', level, 'at', now)
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((full - level) / limit / 1000)))
return { limit - math.floor(level / period), math.ceil((full - level) / limit / 1000000), 0, 0 }
`;

/** @nestjs/throttler does not export its record type from the package root. */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;
type TakeToken = (key: string, periodMs: number, limit: number) => Promise<[number, number, 0 | 1, number]>;

/**
 * @nestjs/throttler's storage as a token bucket in Redis: `limit` hits may come as a burst, then one more
 * every `ttl / limit` ms. Ours because the library's storages (its memory one, @nest-lab's Redis one) count
 * in fixed windows: after a burst a client waits out the whole window (a minute for the write quota), where a
 * bucket refills and tells it, in Retry-After, the seconds until its next token (20 s at 3 a minute).
 * Shared by every replica on one Redis: the bucket and its clock are Redis'.
 *
 * `ttl` is the time a full bucket takes to refill; `blockDuration` is not used: a refused hit is refused
 * until the next token, never for a block. Redis keys are `<key>:<throttlerName>`.
 */
export class RedisTokenBucketStorage implements ThrottlerStorage {
  private readonly takeToken: TakeToken;

  constructor(redis: RedisClient) {
    // defineCommand sends the script once per connection (EVALSHA, EVAL when Redis lost it).
    redis.defineCommand('roundtableTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
    const command = (redis as unknown as { roundtableTakeToken: TakeToken }).roundtableTakeToken;
    this.takeToken = command.bind(redis);
  }

  async increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    if (!Number.isInteger(ttl) || ttl < 1 || !Number.isInteger(limit) || limit < 1) {
      throw new Error(`RedisTokenBucketStorage: ttl (${ttl} ms) and limit (${limit}) must be whole numbers above 0; a limit of 0 is no limit, so do not call the storage`);
    }
    const [totalHits, timeToExpire, refused, timeToBlockExpire] = await this.takeToken(`${key}:${throttlerName}`, ttl, limit);
    return { totalHits, timeToExpire, isBlocked: refused === 1, timeToBlockExpire };
  }
}
