import { randomBytes } from 'node:crypto';
import { providerRegistryKey, ProviderWorkerRecord } from '@roundtable/contracts';
import { createRedisConnection } from '@roundtable/queues';

/**
 * Stands in for a live provider-worker in the provider registry, for tests that run an api with no
 * provider-worker behind it: the record a real worker publishes, under the test's queue prefix,
 * with a TTL that outlasts a suite (the test deletes its prefix). Default: serves `replay`, no key
 * variable set. `redisUrl` is any REDIS_URL form (a single Redis, a Redis Cluster, Sentinel). Returns the record.
 */
export async function publishStandInWorker(
  redisUrl: string,
  prefix: string,
  record: Partial<ProviderWorkerRecord> = {},
  ttlMs = 10 * 60_000,
): Promise<ProviderWorkerRecord> {
  const now = new Date().toISOString();
  const full = ProviderWorkerRecord.parse({
    worker_id: `stand-in-${randomBytes(3).toString('hex')}`,
    host: 'test',
    pid: process.pid,
    providers: ['replay'],
    keys: {},
    clis: {},
    concurrency: 4,
    started_at: now,
    heartbeat_at: now,
    ...record,
  });
  const redis = createRedisConnection(redisUrl);
  try {
    await redis.set(providerRegistryKey(prefix, full.worker_id), JSON.stringify(full), 'PX', ttlMs);
  } finally {
    redis.disconnect();
  }
  return full;
}
