import { DynamicModule, Logger, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { QUEUE, readOperatorPolicy } from '@roundtable/contracts';
import { RunEventPublisher } from '@roundtable/events';
import { cliUserFor, describeCliUser, loadPricingTable } from '@roundtable/providers';
import type { JobProducer, RedisClient } from '@roundtable/queues';
import { infraProviders, INFRA, opsProviders, queueModules, ServiceOps } from '@roundtable/service';
import { AgentCallMetrics } from './agent-call.metrics';
import { AgentCallService } from './agent-call.service';
import type { ProviderWorkerEnv } from './provider-worker.env';
import { agentCallProcessorFor } from './agent-call.processor';
import { DiscoveredProviderQueues } from './discovered-provider-queues';
import { readQueueSettings } from './latest-provider-config';
import { ProviderRegistryPublisher } from './provider-registry.publisher';

const { dataSource: DS, redis: REDIS, producer: PRODUCER } = INFRA;

/**
 * It reports to `orchestrator`. The `agent.<provider>` queues it consumes have no fixed names: a
 * processor each for those PROVIDER_QUEUES names (agentCallProcessorFor), and with `*` the ones
 * found in Postgres (DiscoveredProviderQueues).
 */
const QUEUES = [QUEUE.orchestrator];

@Module({})
export class ProviderWorkerModule {
  static forRoot(env: ProviderWorkerEnv): DynamicModule {
    const log = new Logger('provider-worker');
    // Read once at start: a broken policy file stops the worker here, with the line that is wrong.
    const { policy, source } = readOperatorPolicy();
    const cliUser = cliUserFor(policy, process.getuid?.() ?? 0);
    const named = env.PROVIDER_QUEUES.filter((p) => p !== '*');
    const discover = env.PROVIDER_QUEUES.includes('*');
    return {
      module: ProviderWorkerModule,
      imports: queueModules(env, QUEUES),
      providers: [
        ...infraProviders(env, 'provider-worker', QUEUES),
        ...opsProviders(env, 'provider-worker'),
        {
          provide: AgentCallService,
          useFactory: (ds: DataSource, p: JobProducer, ops: ServiceOps, r: RedisClient) => {
            // Logged here, not in forRoot: only once the application exists do lines go through its JSON logger.
            log.log(source ? `operator policy: ${source}` : 'operator policy: none (ROUNDTABLE_POLICY unset): the safe defaults');
            if (cliUser.ok && cliUser.user.kind === 'run_as') log.log(describeCliUser(cliUser));
            else log.warn(describeCliUser(cliUser));
            const callMetrics = new AgentCallMetrics(ops.metrics);
            // Debate turns stream onto the run's channel, where the api's event streams fan them out.
            const live = new RunEventPublisher(r, env.QUEUE_PREFIX);
            return new AgentCallService(ds, p, {
              retryDelaysMs: env.PROVIDER_RETRY_DELAYS_MS,
              pricing: loadPricingTable(env.PRICING_FILE, (m) => log.warn(m)),
              workspaceRoot: env.WORKSPACE_ROOT,
              policy,
              onRecorded: (tried) => callMetrics.observe(tried),
              liveEvents: (e) => live.publishLiveOnly(e),
              onLiveEventError: (e) => log.warn(`a debate turn's live tokens were not published: ${e.message}`),
            });
          },
          inject: [DS, PRODUCER, ServiceOps, REDIS],
        },
        {
          provide: ProviderRegistryPublisher,
          useFactory: async (r: RedisClient) => {
            const publisher = new ProviderRegistryPublisher(r, { prefix: env.QUEUE_PREFIX, providers: env.PROVIDER_QUEUES, concurrency: env.PROVIDER_CONCURRENCY, policy, cliUser });
            await publisher.start();
            return publisher;
          },
          inject: [REDIS],
        },
        ...named.map((provider) => {
          const processor = agentCallProcessorFor(provider, env.QUEUE_PREFIX);
          return {
            provide: processor,
            useFactory: (ds: DataSource, p: JobProducer, calls: AgentCallService, ops: ServiceOps) =>
              new processor(provider, calls, p, {
                metrics: ops.metrics,
                atStart: () => readQueueSettings(ds, provider, process.env, env.PROVIDER_CONCURRENCY),
              }),
            inject: [DS, PRODUCER, AgentCallService, ServiceOps],
          };
        }),
        ...(discover
          ? [
              {
                provide: DiscoveredProviderQueues,
                useFactory: (ds: DataSource, r: RedisClient, p: JobProducer, calls: AgentCallService, ops: ServiceOps) =>
                  new DiscoveredProviderQueues(ds, r, p, calls, {
                    prefix: env.QUEUE_PREFIX,
                    skip: named,
                    concurrency: env.PROVIDER_CONCURRENCY,
                    discoveryMs: env.PROVIDER_DISCOVERY_MS,
                    metrics: ops.metrics,
                  }),
                inject: [DS, REDIS, PRODUCER, AgentCallService, ServiceOps],
              },
            ]
          : []),
      ],
    };
  }
}
