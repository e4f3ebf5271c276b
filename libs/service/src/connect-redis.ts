import { connectErrorText, redactDatabaseUrl } from '@roundtable/persistence';
import { createRedisConnection, type RedisClient } from '@roundtable/queues';

/** Long enough for a Redis that is still starting (compose, a pod's neighbour); short enough that a wrong REDIS_URL is said soon. */
export const REDIS_FIRST_CONNECT_MS = 5000;

/**
 * A service's Redis at start: the connection once it answers, or an error naming Redis, REDIS_URL
 * and the address (password redacted) with the last socket error, instead of ioredis retrying a
 * bare ECONNREFUSED forever while the service never comes up. Once started, a lost Redis is
 * waited for (BullMQ's connections reconnect): only the first connect is held to a deadline.
 */
export async function connectRedis(url: string, timeoutMs = REDIS_FIRST_CONNECT_MS): Promise<RedisClient> {
  const redis = createRedisConnection(url);
  let last: Error | undefined;
  const onError = (e: Error) => (last = e);
  redis.on('error', onError);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(last ?? new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return redis;
  } catch (e) {
    redis.disconnect();
    throw new Error(
      `cannot reach Redis at ${redactDatabaseUrl(url)} (REDIS_URL) within ${timeoutMs} ms: ${connectErrorText(e)}; start Redis or set REDIS_URL to where it listens`,
      { cause: e },
    );
  } finally {
    redis.off('error', onError);
  }
}
