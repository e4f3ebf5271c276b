import { randomBytes } from 'node:crypto';
import { isCluster, scanKeys, type RedisClient } from '@roundtable/queues';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A queue prefix no other test uses, so tests never see each other's jobs. */
export function randomQueuePrefix(tag = 'rt_test'): string {
  return `${tag}_${randomBytes(5).toString('hex')}`;
}

/**
 * Deletes every key under a prefix (BullMQ keys are `<prefix>:{<queue>}:<queue>:…`), on every
 * master of a Redis Cluster; one DEL per key there, as keys of different slots cannot share one.
 */
export async function deleteRedisPrefix(redis: RedisClient, prefix: string): Promise<number> {
  const keys = await scanKeys(redis, `${prefix}:*`, 1000);
  let deleted = 0;
  for (let i = 0; i < keys.length; i += 500) {
    const batch = keys.slice(i, i + 500);
    deleted += isCluster(redis) ? (await Promise.all(batch.map((k) => redis.del(k)))).reduce((a, b) => a + b, 0) : await redis.del(...batch);
  }
  return deleted;
}
