import { DynamicModule, Logger, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { readOperatorPolicy } from '@roundtable/contracts';
import { cliUserFor, describeCliUser, loadPricingTable } from '@roundtable/providers';
import { infraProviders, INFRA, opsProviders, ServiceOps, type JobProducer } from '@roundtable/queues';
import { AgentCallMetrics } from './agent-call.metrics';
import { AgentCallService } from './agent-call.service';
import type { ProviderWorkerEnv } from './provider-worker.env';
import { ProviderQueuesWorker } from './provider-queues.worker';

const { dataSource: DS, redis: REDIS, producer: PRODUCER } = INFRA;

@Module({})
export class ProviderWorkerModule {
  static forRoot(env: ProviderWorkerEnv): DynamicModule {
    const log = new Logger('provider-worker');
    // Read once at start: a broken policy file stops the worker here, with the line that is wrong.
    const { policy, source } = readOperatorPolicy();
    const cliUser = cliUserFor(policy, process.getuid?.() ?? 0);
    return {
      module: ProviderWorkerModule,
      providers: [
        ...infraProviders(env, 'provider-worker'),
        ...opsProviders(env, 'provider-worker'),
        {
          provide: AgentCallService,
          useFactory: (ds: DataSource, p: JobProducer, ops: ServiceOps) => {
            // Logged here, not in forRoot: only once the application exists do lines go through its JSON logger.
            log.log(source ? `operator policy: ${source}` : 'operator policy: none (ROUNDTABLE_POLICY unset): the safe defaults');
            if (cliUser.ok && cliUser.user.kind === 'run_as') log.log(describeCliUser(cliUser));
            else log.warn(describeCliUser(cliUser));
            const callMetrics = new AgentCallMetrics(ops.metrics);
            return new AgentCallService(ds, p, {
              retryDelaysMs: env.PROVIDER_RETRY_DELAYS_MS,
              pricing: loadPricingTable(env.PRICING_FILE, (m) => log.warn(m)),
              workspaceRoot: env.WORKSPACE_ROOT,
              policy,
              onRecorded: (tried) => callMetrics.observe(tried),
            });
          },
          inject: [DS, PRODUCER, ServiceOps],
        },
        {
          provide: ProviderQueuesWorker,
          useFactory: (ds: DataSource, r: Redis, p: JobProducer, calls: AgentCallService, ops: ServiceOps) =>
            new ProviderQueuesWorker(ds, r, p, calls, {
              prefix: env.QUEUE_PREFIX,
              providers: env.PROVIDER_QUEUES,
              concurrency: env.PROVIDER_CONCURRENCY,
              discoveryMs: env.PROVIDER_DISCOVERY_MS,
              metrics: ops.metrics,
            }),
          inject: [DS, REDIS, PRODUCER, AgentCallService, ServiceOps],
        },
      ],
    };
  }
}
