import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { infraProviders, INFRA, opsProviders, ServiceOps, type JobProducer } from '@roundtable/queues';
import { SandboxRunners } from './sandbox-runners';
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
        ...opsProviders(env, 'test-runner'),
        {
          provide: SandboxRunners,
          useFactory: (ops: ServiceOps) => {
            const runners = new SandboxRunners({ image: env.SANDBOX_IMAGE, dockerHost: env.DOCKER_HOST, metrics: ops.metrics });
            if (env.READYZ_DOCKER) ops.addProbe('docker', () => runners.pingDocker());
            return runners;
          },
          inject: [ServiceOps],
        },
        {
          provide: WorkspaceOpsService,
          useFactory: (ds: DataSource, p: JobProducer, runners: SandboxRunners) => new WorkspaceOpsService(ds, p, env.WORKSPACE_ROOT, runners),
          inject: [DS, PRODUCER, SandboxRunners],
        },
        {
          provide: TestRunnerWorker,
          useFactory: (r: Redis, ops: WorkspaceOpsService, service: ServiceOps) =>
            new TestRunnerWorker(r, env.QUEUE_PREFIX, ops, env.TEST_RUNNER_CONCURRENCY, service.metrics),
          inject: [REDIS, WorkspaceOpsService, ServiceOps],
        },
      ],
    };
  }
}
