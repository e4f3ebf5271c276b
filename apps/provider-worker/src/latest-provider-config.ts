import type { DataSource } from 'typeorm';
import type { ProviderConfig } from '@roundtable/contracts';
import { queueSettings, type QueueSettings } from './queue-settings';

/** The provider's entry in the most recent run that declares it: rate limit and concurrency live there. */
async function latestProviderConfig(ds: DataSource, provider: string): Promise<ProviderConfig | null> {
  const rows: { cfg: ProviderConfig | null }[] = await ds.query(
    `SELECT config -> 'providers' -> $1 AS cfg FROM runs WHERE config -> 'providers' ? $1 ORDER BY created_at DESC LIMIT 1`,
    [provider],
  );
  return rows[0]?.cfg ?? null;
}

/** How a provider's queue is consumed, as its worker starts (queueSettings over the latest run's entry). */
export async function readQueueSettings(ds: DataSource, provider: string, env: NodeJS.ProcessEnv, fallbackConcurrency: number): Promise<QueueSettings> {
  return queueSettings(provider, await latestProviderConfig(ds, provider), env, fallbackConcurrency);
}
