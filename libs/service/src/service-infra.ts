import { Inject, OnApplicationShutdown, Provider, type DynamicModule } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { TraceExportLifecycle } from '@roundtable/observability';
import { openMigratedDataSource } from '@roundtable/persistence';
import { bullRoot, JobProducer, registerQueues, type FixedQueueName, type RedisClient } from '@roundtable/queues';
import { connectRedis } from './connect-redis';

/** Injection tokens for the connections every service holds. */
export const INFRA = { dataSource: 'DATA_SOURCE', redis: 'REDIS', producer: 'PRODUCER' } as const;

/**
 * Closes the connections last. Workers close in `beforeApplicationShutdown` (running jobs
 * finish first, TypedProcessor), so by the time this runs nothing uses Redis or Postgres any more.
 */
class InfraLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(INFRA.dataSource) private readonly ds: DataSource,
    @Inject(INFRA.redis) private readonly redis: RedisClient,
    @Inject(INFRA.producer) private readonly producer: JobProducer,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.producer.close();
    this.redis.disconnect();
    await this.ds.destroy();
  }
}

type InfraEnv = { DATABASE_URL: string; REDIS_URL: string; QUEUE_PREFIX: string };

/**
 * @nestjs/bullmq for a service: its root (REDIS_URL, QUEUE_PREFIX) and the fixed queues it
 * consumes or produces to; import these where infraProviders() is provided.
 */
export function queueModules(env: InfraEnv, queues: FixedQueueName[]): DynamicModule[] {
  return [bullRoot(env), registerQueues(env.QUEUE_PREFIX, ...queues)];
}

/**
 * Postgres (refusing an unmigrated database), Redis and the typed job producer over the
 * service's registered queues (queueModules), as Nest providers. A service that reaches Redis or
 * Postgres gets them from here, so every service connects, names itself and shuts down the same
 * way. (The one place Postgres and Redis meet for a service: why it is the service shell's, not the
 * queue plumbing's, which imports the contracts alone.)
 */
export function infraProviders(env: InfraEnv, service: string, queues: FixedQueueName[]): Provider[] {
  return [
    { provide: INFRA.dataSource, useFactory: () => openMigratedDataSource(env.DATABASE_URL, { applicationName: `roundtable-${service}` }) },
    // Held to a deadline at start so a wrong REDIS_URL is said, not waited on forever.
    { provide: INFRA.redis, useFactory: () => connectRedis(env.REDIS_URL) },
    {
      provide: INFRA.producer,
      useFactory: (r: RedisClient, ...registered: Queue[]) => new JobProducer(r, env.QUEUE_PREFIX, registered),
      inject: [INFRA.redis, ...queues.map((q) => getQueueToken(q))],
    },
    InfraLifecycle,
    // Flushes the batched spans at shutdown (nothing to do with tracing off).
    TraceExportLifecycle,
  ];
}
