import type { RedisClient } from './redis-connection';
import { isCluster } from './redis-connection';

/**
 * Every key matching `pattern`, by SCAN (never KEYS: a shared Redis may hold many prefixes). On a
 * Redis Cluster a SCAN walks one node only, so each master is walked in turn.
 */
export async function scanKeys(client: RedisClient, pattern: string, count = 200): Promise<string[]> {
  // A Cluster client knows its masters once it has read the slot map: a PING waits for that.
  if (isCluster(client) && client.status !== 'ready') await client.ping();
  const nodes = isCluster(client) ? client.nodes('master') : [client];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
  }
  return keys;
}
