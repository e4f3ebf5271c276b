import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { createRedisConnection, JobProducer } from '@roundtable/queues';
import { openMigratedDataSource } from '@roundtable/persistence';
import { AgentCallService } from './agent-call.service';
import type { ProviderWorkerEnv } from './provider-worker.env';
import { ProviderQueuesWorker } from './provider-queues.worker';

const DS = 'DATA_SOURCE';
const REDIS = 'REDIS';
const PRODUCER = 'PRODUCER';

class Connections implements OnApplicationShutdown {
  constructor(
    @Inject(DS) private readonly ds: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(PRODUCER) private readonly producer: JobProducer,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.producer.close();
    this.redis.disconnect();
    await this.ds.destroy();
  }
}

@Module({})
export class ProviderWorkerModule {
  static forRoot(env: ProviderWorkerEnv): DynamicModule {
    return {
      module: ProviderWorkerModule,
      providers: [
        { provide: DS, useFactory: () => openMigratedDataSource(env.DATABASE_URL, { applicationName: 'roundtable-provider-worker' }) },
        { provide: REDIS, useFactory: () => createRedisConnection(env.REDIS_URL) },
        { provide: PRODUCER, useFactory: (r: Redis) => new JobProducer(r, env.QUEUE_PREFIX), inject: [REDIS] },
        { provide: AgentCallService, useFactory: (ds: DataSource, p: JobProducer) => new AgentCallService(ds, p), inject: [DS, PRODUCER] },
        {
          provide: ProviderQueuesWorker,
          useFactory: (ds: DataSource, r: Redis, calls: AgentCallService) =>
            new ProviderQueuesWorker(ds, r, env.QUEUE_PREFIX, env.PROVIDER_QUEUES, calls, env.PROVIDER_CONCURRENCY, env.PROVIDER_DISCOVERY_MS),
          inject: [DS, REDIS, AgentCallService],
        },
        Connections,
      ],
    };
  }
}
