import type { RateLimiterOptions } from 'bullmq';
import type { ProviderConfig } from '@roundtable/contracts';

export interface QueueSettings {
  concurrency: number;
  limiter: RateLimiterOptions;
  /** Where the numbers came from, for the start-up log line. */
  source: string;
}

/**
 * With no configured rate limit, a limit no provider call rate reaches: BullMQ applies a
 * manual back-off (a 429's `rateLimit()`) only on a queue that has a limiter.
 */
export const UNLIMITED: RateLimiterOptions = { max: 1_000_000, duration: 1000 };

/** `PROVIDER_CONCURRENCY_<NAME>`: provider names may hold `-`, environment names may not. */
export const concurrencyEnvVar = (provider: string) => `PROVIDER_CONCURRENCY_${provider.toUpperCase().replace(/-/g, '_')}`;

/**
 * How one provider's queue is consumed: concurrency from PROVIDER_CONCURRENCY_<NAME>, else the
 * provider's `concurrency` in the project file, else PROVIDER_CONCURRENCY; the BullMQ rate limit
 * from the provider's `rate_limit` (project files are per run, so the most recent run's entry is
 * the one passed in).
 */
export function queueSettings(provider: string, cfg: Pick<ProviderConfig, 'concurrency' | 'rate_limit'> | null, env: NodeJS.ProcessEnv, fallbackConcurrency: number): QueueSettings {
  const fromEnv = Number(env[concurrencyEnvVar(provider)]);
  const envOk = Number.isInteger(fromEnv) && fromEnv > 0;
  const concurrency = envOk ? fromEnv : (cfg?.concurrency ?? fallbackConcurrency);
  const limiter = cfg?.rate_limit ? { max: cfg.rate_limit.max, duration: cfg.rate_limit.duration_ms } : UNLIMITED;
  const parts = [
    `concurrency ${concurrency} (${envOk ? concurrencyEnvVar(provider) : cfg?.concurrency ? 'project file' : 'PROVIDER_CONCURRENCY'})`,
    cfg?.rate_limit ? `rate limit ${cfg.rate_limit.max} per ${cfg.rate_limit.duration_ms} ms (project file)` : 'no rate limit',
  ];
  return { concurrency, limiter, source: parts.join(', ') };
}
