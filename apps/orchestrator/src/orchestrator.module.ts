import { DynamicModule, Module, OnApplicationShutdown, Inject } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { OutboxDispatcher, RunEventPublisher } from '@roundtable/events';
import { createRedisConnection, JobProducer } from '@roundtable/queues';
import { openMigratedDataSource } from '@roundtable/persistence';
import type { OrchestratorEnv } from './orchestrator.env';
import { OrchestratorStepService } from './orchestrator-step.service';
import { OrchestratorWorker } from './orchestrator.worker';
import { defaultPromptsDir, loadPromptTemplates } from './prompt-templates';

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

/** Wires the orchestrator: Postgres, Redis, the outbox, the pure workflow and the queue worker. */
@Module({})
export class OrchestratorModule {
  static forRoot(env: OrchestratorEnv): DynamicModule {
    return {
      module: OrchestratorModule,
      providers: [
        { provide: DS, useFactory: () => openMigratedDataSource(env.DATABASE_URL, { applicationName: 'roundtable-orchestrator' }) },
        { provide: REDIS, useFactory: () => createRedisConnection(env.REDIS_URL) },
        { provide: PRODUCER, useFactory: (r: Redis) => new JobProducer(r, env.QUEUE_PREFIX), inject: [REDIS] },
        {
          provide: OrchestratorStepService,
          useFactory: (ds: DataSource, r: Redis, p: JobProducer) =>
            new OrchestratorStepService(
              ds,
              new OutboxDispatcher(ds, p),
              new RunEventPublisher(r, env.QUEUE_PREFIX),
              loadPromptTemplates(env.PROMPTS_DIR ?? defaultPromptsDir()),
            ),
          inject: [DS, REDIS, PRODUCER],
        },
        {
          provide: OrchestratorWorker,
          useFactory: (ds: DataSource, r: Redis, p: JobProducer, steps: OrchestratorStepService) =>
            new OrchestratorWorker(r, env.QUEUE_PREFIX, steps, new OutboxDispatcher(ds, p), env.OUTBOX_SWEEP_MS, env.ORCHESTRATOR_CONCURRENCY),
          inject: [DS, REDIS, PRODUCER, OrchestratorStepService],
        },
        Connections,
      ],
    };
  }
}
