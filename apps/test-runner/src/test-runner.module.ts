import { DynamicModule, Logger, Module } from '@nestjs/common';
import type { LoadedPolicy } from '@roundtable/contracts';
import type { DataSource } from 'typeorm';
import { QUEUE } from '@roundtable/contracts';
import type { JobProducer } from '@roundtable/queues';
import { infraProviders, INFRA, opsProviders, queueModules, ServiceOps } from '@roundtable/service';
import { SandboxRunners } from './sandbox-runners';
import type { TestRunnerEnv } from './test-runner.env';
import { TestsProcessor } from './tests.processor';
import { WorkspaceOpsService } from './workspace-ops.service';
import { WorkspaceProcessor } from './workspace.processor';

const { dataSource: DS, producer: PRODUCER } = INFRA;

/** It consumes `workspace` and `tests`, and reports to `orchestrator`. */
const QUEUES = [QUEUE.workspace, QUEUE.tests, QUEUE.orchestrator];

@Module({})
export class TestRunnerModule {
  static forRoot(env: TestRunnerEnv, loaded: LoadedPolicy): DynamicModule {
    const { policy } = loaded;
    return {
      module: TestRunnerModule,
      imports: queueModules(env, QUEUES),
      providers: [
        ...infraProviders(env, 'test-runner', QUEUES),
        ...opsProviders(env, 'test-runner'),
        {
          provide: SandboxRunners,
          useFactory: (ops: ServiceOps) => {
            const runners = new SandboxRunners({ image: env.SANDBOX_IMAGE, runtime: policy.sandbox.runtime, dockerHost: env.DOCKER_HOST, metrics: ops.metrics });
            if (env.READYZ_DOCKER) ops.addProbe('docker', () => runners.pingDocker());
            return runners;
          },
          inject: [ServiceOps],
        },
        {
          provide: WorkspaceOpsService,
          useFactory: (ds: DataSource, p: JobProducer, runners: SandboxRunners) => {
            // Here rather than in forRoot: by now the app's own (JSON) logger is in place.
            new Logger('policy').log(policySummary(loaded));
            return new WorkspaceOpsService(ds, p, env.WORKSPACE_ROOT, runners, policy);
          },
          inject: [DS, PRODUCER, SandboxRunners],
        },
        {
          provide: WorkspaceProcessor,
          useFactory: (ops: WorkspaceOpsService, service: ServiceOps) => new WorkspaceProcessor(ops, { concurrency: env.TEST_RUNNER_CONCURRENCY, metrics: service.metrics }),
          inject: [WorkspaceOpsService, ServiceOps],
        },
        {
          provide: TestsProcessor,
          useFactory: (ops: WorkspaceOpsService, service: ServiceOps) => new TestsProcessor(ops, { concurrency: env.TEST_RUNNER_CONCURRENCY, metrics: service.metrics }),
          inject: [WorkspaceOpsService, ServiceOps],
        },
      ],
    };
  }
}

/** Where the policy came from and what of it the test-runner enforces, for the start-up log. */
function policySummary({ policy, source }: LoadedPolicy): string {
  const s = policy.sandbox;
  const what =
    `repos.roots [${policy.repos.roots.join(', ')}]; sandbox: allow_process ${s.allow_process}, images [${s.images.join(', ')}], ` +
    `max memory ${s.max_memory_mb} MiB, pids ${s.max_pids}, cpus ${s.max_cpus}, timeout ${s.max_timeout_s} s, runtime ${s.runtime ?? 'the engine default'}`;
  return source ? `operator policy from ${source}: ${what}` : `no ROUNDTABLE_POLICY, the safe default operator policy: ${what}`;
}
