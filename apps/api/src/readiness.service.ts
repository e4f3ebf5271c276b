import type { DataSource } from 'typeorm';
import type { Readiness, TerminusReadiness } from '@roundtable/observability';
import type { RedisClient } from '@roundtable/queues';

export type { Readiness };

/**
 * Whether this replica can serve: Postgres answers SELECT 1 and Redis answers PING, each within
 * its deadline, and shutdown has not begun. With DATABASE_READ_URL the read replica is asked too
 * (`postgres_replica`): the lists, views and replays go there, so an api whose replica is gone
 * cannot serve them, and a 503 naming it tells the operator which server to look at.
 */
export class ReadinessService {
  constructor(
    private readonly terminus: TerminusReadiness,
    private readonly ds: DataSource,
    private readonly redis: RedisClient,
    private readonly timeoutMs = 2000,
    private readonly replica: DataSource | null = null,
  ) {}

  check(): Promise<Readiness> {
    const replica = this.replica;
    return this.terminus.check(
      { postgres: () => this.ds.query('SELECT 1'), redis: () => this.redis.ping(), ...(replica ? { postgres_replica: () => replica.query('SELECT 1') } : {}) },
      this.timeoutMs,
    );
  }
}
