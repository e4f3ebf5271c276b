import IORedis, { Redis, type RedisOptions } from 'ioredis';

/**
 * BullMQ workers block on Redis; with ioredis' default retry limit a blocked command
 * would throw instead of waiting, so `maxRetriesPerRequest: null` is required.
 */
export function createRedisConnection(url: string): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/**
 * REDIS_URL as ioredis options, for @nestjs/bullmq: given options rather than a client, BullMQ
 * opens its own connections for each queue and worker and closes them with it (a client passed
 * in is shared, and nothing would close it). `maxRetriesPerRequest: null` for the same reason as above.
 */
export function redisConnectionOptions(url: string): RedisOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`REDIS_URL is not a URL (${url}): give redis://[user:password@]host[:port][/db]`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error(`REDIS_URL must start with redis:// or rediss:// (got ${u.protocol}//)`);
  const db = u.pathname.replace(/^\//, '');
  return {
    host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
  };
}
