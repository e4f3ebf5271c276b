import { Inject, OnApplicationShutdown, Provider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { openMigratedDataSource } from '@roundtable/persistence';
import { JobProducer } from './job-producer';
import { createRedisConnection } from './redis-connection';

/** Injection tokens for the connections every service holds. */
export const INFRA = { dataSource: 'DATA_SOURCE', redis: 'REDIS', producer: 'PRODUCER' } as const;

/**
 * Closes the connections last. Workers close in `beforeApplicationShutdown` (running jobs
 * finish first), so by the time this runs nothing uses Redis or Postgres any more.
 */
class InfraLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(INFRA.dataSource) private readonly ds: DataSource,
    @Inject(INFRA.redis) private readonly redis: Redis,
    @Inject(INFRA.producer) private readonly producer: JobProducer,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.producer.close();
    this.redis.disconnect();
    await this.ds.destroy();
  }
}

/**
 * Postgres (refusing an unmigrated database), Redis and the typed job producer, as Nest
 * providers. A service that reaches Redis or Postgres gets them from here, so every service
 * connects, names itself and shuts down the same way. (This is why `queues` imports
 * `persistence`: it is the one place the two meet for a service.)
 */
export function infraProviders(env: { DATABASE_URL: string; REDIS_URL: string; QUEUE_PREFIX: string }, service: string): Provider[] {
  return [
    { provide: INFRA.dataSource, useFactory: () => openMigratedDataSource(env.DATABASE_URL, { applicationName: `roundtable-${service}` }) },
    { provide: INFRA.redis, useFactory: () => createRedisConnection(env.REDIS_URL) },
    { provide: INFRA.producer, useFactory: (r: Redis) => new JobProducer(r, env.QUEUE_PREFIX), inject: [INFRA.redis] },
    InfraLifecycle,
  ];
}
