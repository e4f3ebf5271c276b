import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A queue prefix no other test uses, so tests never see each other's jobs. */
export function randomQueuePrefix(tag = 'rt_test'): string {
  return `${tag}_${randomBytes(5).toString('hex')}`;
}

/** Deletes every key under a prefix (BullMQ keys are `<prefix>:<queue>:…`). */
export async function deleteRedisPrefix(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
