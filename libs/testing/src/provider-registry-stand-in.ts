import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { providerRegistryKey, ProviderWorkerRecord } from '@roundtable/contracts';

/**
 * Stands in for a live provider-worker in the provider registry, for tests that run an api with no
 * provider-worker behind it: the record a real worker publishes, under the test's queue prefix,
 * with a TTL that outlasts a suite (the test deletes its prefix). Default: serves `replay`, no key
 * variable set. Returns the record.
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
  const redis = new IORedis(redisUrl);
  try {
    await redis.set(providerRegistryKey(prefix, full.worker_id), JSON.stringify(full), 'PX', ttlMs);
  } finally {
    redis.disconnect();
  }
  return full;
}
