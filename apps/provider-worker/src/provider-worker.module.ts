import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { infraProviders, INFRA, type JobProducer } from '@roundtable/queues';
import { AgentCallService } from './agent-call.service';
import type { ProviderWorkerEnv } from './provider-worker.env';
import { ProviderQueuesWorker } from './provider-queues.worker';

const { dataSource: DS, redis: REDIS, producer: PRODUCER } = INFRA;

@Module({})
export class ProviderWorkerModule {
  static forRoot(env: ProviderWorkerEnv): DynamicModule {
    return {
      module: ProviderWorkerModule,
      providers: [
        ...infraProviders(env, 'provider-worker'),
        { provide: AgentCallService, useFactory: (ds: DataSource, p: JobProducer) => new AgentCallService(ds, p), inject: [DS, PRODUCER] },
        {
          provide: ProviderQueuesWorker,
          useFactory: (ds: DataSource, r: Redis, calls: AgentCallService) =>
            new ProviderQueuesWorker(ds, r, env.QUEUE_PREFIX, env.PROVIDER_QUEUES, calls, env.PROVIDER_CONCURRENCY, env.PROVIDER_DISCOVERY_MS),
          inject: [DS, REDIS, AgentCallService],
        },
      ],
    };
  }
}
