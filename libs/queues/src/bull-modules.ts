import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule } from '@nestjs/common';
import type { QUEUE } from '@roundtable/contracts';
import { QUEUE_DEFAULTS } from './queue-defaults';
import { redisConnectionOptions } from './redis-connection';

/**
 * @nestjs/bullmq's root: every queue and worker of the service connects to REDIS_URL under
 * QUEUE_PREFIX (random per test, so tests running side by side never share a key).
 */
export function bullRoot(env: { REDIS_URL: string; QUEUE_PREFIX: string }): DynamicModule {
  return BullModule.forRootAsync({ useFactory: () => ({ connection: redisConnectionOptions(env.REDIS_URL), prefix: env.QUEUE_PREFIX }) });
}

export type FixedQueueName = (typeof QUEUE)[keyof typeof QUEUE];

/**
 * The fixed queues (libs/contracts' QUEUE) a service consumes or produces to, each with its
 * kind's job defaults (a fixed queue's name is its kind). The `agent.<provider>` queues are not
 * here: their names are known only at run time (JobProducer opens them as they are needed).
 */
export function registerQueues(...names: FixedQueueName[]): DynamicModule {
  return BullModule.registerQueue(...names.map((name) => ({ name, defaultJobOptions: QUEUE_DEFAULTS[name].job })));
}
