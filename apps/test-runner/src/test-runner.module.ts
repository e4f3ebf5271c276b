import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { infraProviders, INFRA, type JobProducer } from '@roundtable/queues';
import { ProcessTestRunner } from '@roundtable/sandbox';
import type { TestRunnerEnv } from './test-runner.env';
import { TestRunnerWorker } from './test-runner.worker';
import { WorkspaceOpsService } from './workspace-ops.service';

const { dataSource: DS, redis: REDIS, producer: PRODUCER } = INFRA;

@Module({})
export class TestRunnerModule {
  static forRoot(env: TestRunnerEnv): DynamicModule {
    return {
      module: TestRunnerModule,
      providers: [
        ...infraProviders(env, 'test-runner'),
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
      ],
    };
  }
}
