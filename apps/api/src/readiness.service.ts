import type { DataSource } from 'typeorm';
import type { Readiness, TerminusReadiness } from '@roundtable/observability';
import type { RedisClient } from '@roundtable/queues';

export type { Readiness };

/** Whether this replica can serve: Postgres answers SELECT 1 and Redis answers PING, each within its deadline, and shutdown has not begun. */
export class ReadinessService {
  constructor(
    private readonly terminus: TerminusReadiness,
    private readonly ds: DataSource,
    private readonly redis: RedisClient,
    private readonly timeoutMs = 2000,
  ) {}

  check(): Promise<Readiness> {
    return this.terminus.check({ postgres: () => this.ds.query('SELECT 1'), redis: () => this.redis.ping() }, this.timeoutMs);
  }
}
