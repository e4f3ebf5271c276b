import { providerRegistryPattern, ProviderWorkerRecord } from '@roundtable/contracts';
import { scanKeys, type RedisClient } from '@roundtable/queues';

/**
 * The live provider-workers, as they publish themselves (apps/provider-worker
 * provider-registry.publisher.ts): a record expires TTL after its worker's last heartbeat, so
 * what is here is what runs. A record that does not parse is skipped, never trusted.
 */
export async function readProviderRegistry(redis: RedisClient, prefix: string): Promise<ProviderWorkerRecord[]> {
  // On a Redis Cluster every master is walked; the keys share a hash tag, so one MGET reads them.
  const keys = await scanKeys(redis, providerRegistryPattern(prefix));
  if (!keys.length) return [];
  const values = await redis.mget(...keys);
  const records: ProviderWorkerRecord[] = [];
  for (const v of values) {
    if (!v) continue;
    try {
      const parsed = ProviderWorkerRecord.safeParse(JSON.parse(v));
      if (parsed.success) records.push(parsed.data);
    } catch {
      // not JSON: not a record
    }
  }
  return records.sort((a, b) => a.worker_id.localeCompare(b.worker_id));
}
