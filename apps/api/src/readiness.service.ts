import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';

export interface Readiness {
  ready: boolean;
  checks: { postgres: string; redis: string };
}

/** The Redis client waits forever for a lost server (BullMQ needs that), so each probe gets its own deadline. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function probe(run: () => Promise<unknown>, ms: number): Promise<string> {
  try {
    await within(run(), ms);
    return 'ok';
  } catch (e) {
    return (e as Error).message || 'failed';
  }
}

/** Whether this replica can serve: Postgres answers SELECT 1 and Redis answers PING. */
export class ReadinessService {
  constructor(
    private readonly ds: DataSource,
    private readonly redis: Redis,
    private readonly timeoutMs = 2000,
  ) {}

  async check(): Promise<Readiness> {
    const [postgres, redis] = await Promise.all([
      probe(() => this.ds.query('SELECT 1'), this.timeoutMs),
      probe(() => this.redis.ping(), this.timeoutMs),
    ]);
    return { ready: postgres === 'ok' && redis === 'ok', checks: { postgres, redis } };
  }
}
