import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { checkReadiness, type Readiness } from '@roundtable/observability';

export type { Readiness };

/** Whether this replica can serve: Postgres answers SELECT 1 and Redis answers PING, each within its deadline. */
export class ReadinessService {
  constructor(
    private readonly ds: DataSource,
    private readonly redis: Redis,
    private readonly timeoutMs = 2000,
  ) {}

  check(): Promise<Readiness> {
    return checkReadiness({ postgres: () => this.ds.query('SELECT 1'), redis: () => this.redis.ping() }, this.timeoutMs);
  }
}
