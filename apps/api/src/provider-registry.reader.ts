import type { Redis } from 'ioredis';
import { providerRegistryPattern, ProviderWorkerRecord } from '@roundtable/contracts';

/**
 * The live provider-workers, as they publish themselves (apps/provider-worker
 * provider-registry.publisher.ts): a record expires TTL after its worker's last heartbeat, so
 * what is here is what runs. A record that does not parse is skipped, never trusted.
 */
export async function readProviderRegistry(redis: Redis, prefix: string): Promise<ProviderWorkerRecord[]> {
  const keys: string[] = [];
  // SCAN, not KEYS: a shared Redis may hold many prefixes.
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', providerRegistryPattern(prefix), 'COUNT', 200);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
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
