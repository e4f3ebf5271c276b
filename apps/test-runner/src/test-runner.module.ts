import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { createRedisConnection, JobProducer } from '@roundtable/queues';
import { openMigratedDataSource } from '@roundtable/persistence';
import { ProcessTestRunner } from '@roundtable/sandbox';
import type { TestRunnerEnv } from './test-runner.env';
import { TestRunnerWorker } from './test-runner.worker';
import { WorkspaceOpsService } from './workspace-ops.service';

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
export class TestRunnerModule {
  static forRoot(env: TestRunnerEnv): DynamicModule {
    return {
      module: TestRunnerModule,
      providers: [
        { provide: DS, useFactory: () => openMigratedDataSource(env.DATABASE_URL, { applicationName: 'roundtable-test-runner' }) },
        { provide: REDIS, useFactory: () => createRedisConnection(env.REDIS_URL) },
        { provide: PRODUCER, useFactory: (r: Redis) => new JobProducer(r, env.QUEUE_PREFIX), inject: [REDIS] },
        {
          provide: WorkspaceOpsService,
          // The subprocess runner is containment, not a sandbox; the Docker runner replaces it (issue 4).
          useFactory: (ds: DataSource, p: JobProducer) => new WorkspaceOpsService(ds, p, env.WORKSPACE_ROOT, new ProcessTestRunner()),
          inject: [DS, PRODUCER],
        },
        {
          provide: TestRunnerWorker,
          useFactory: (r: Redis, ops: WorkspaceOpsService) => new TestRunnerWorker(r, env.QUEUE_PREFIX, ops, env.TEST_RUNNER_CONCURRENCY),
          inject: [REDIS, WorkspaceOpsService],
        },
        Connections,
      ],
    };
  }
}
