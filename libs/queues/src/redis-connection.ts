import IORedis, { Redis } from 'ioredis';

/**
 * BullMQ workers block on Redis; with ioredis' default retry limit a blocked command
 * would throw instead of waiting, so `maxRetriesPerRequest: null` is required.
 */
export function createRedisConnection(url: string): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}
