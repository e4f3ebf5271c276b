import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { QUEUE } from '@roundtable/contracts';
import { QUEUE_DEFAULTS } from './queue-defaults';
import { queuePrefix } from './queue-prefix';
import { bullConnection, type RedisClient } from './redis-connection';

/**
 * Quits the Cluster client the service's queues and workers shared (bullConnection), once they
 * are closed: workers close before application shutdown (TypedProcessor), and a queue closing
 * after this leaves a shared client alone.
 */
class SharedBullConnections implements OnApplicationShutdown {
  constructor(readonly owned: RedisClient[]) {}
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.owned.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
  }
}

@Module({})
class BullRootModule {}

/**
 * @nestjs/bullmq's root: every queue and worker of the service connects to REDIS_URL (a single
 * Redis, Sentinel or a Redis Cluster) under QUEUE_PREFIX (random per test, so tests running side by
 * side never share a key); each queue's own prefix adds its hash tag (registerQueues).
 */
export function bullRoot(env: { REDIS_URL: string; QUEUE_PREFIX: string }): DynamicModule {
  const shared = new SharedBullConnections([]);
  return {
    module: BullRootModule,
    imports: [BullModule.forRootAsync({ useFactory: () => ({ connection: bullConnection(env.REDIS_URL, shared.owned), prefix: env.QUEUE_PREFIX }) })],
    providers: [{ provide: SharedBullConnections, useValue: shared }],
    exports: [BullModule],
  };
}

export type FixedQueueName = (typeof QUEUE)[keyof typeof QUEUE];

/**
 * The fixed queues (libs/contracts' QUEUE) a service consumes or produces to, each with its
 * kind's job defaults (a fixed queue's name is its kind) and its hash-tagged prefix (queuePrefix:
 * a @Processor's worker takes its queue's). The `agent.<provider>` queues are not here: their
 * names are known only at run time (JobProducer opens them as they are needed).
 */
export function registerQueues(prefix: string, ...names: FixedQueueName[]): DynamicModule {
  return BullModule.registerQueue(...names.map((name) => ({ name, prefix: queuePrefix(prefix, name), defaultJobOptions: QUEUE_DEFAULTS[name].job })));
}
