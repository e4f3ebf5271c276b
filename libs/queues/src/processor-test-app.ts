import { Module, type INestApplicationContext, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { bullRoot, registerQueues, type FixedQueueName } from './bull-modules';

/**
 * For integration tests: processors (and what they need) in a Nest application with
 * @nestjs/bullmq on `redisUrl` under `prefix`, started as a service starts them. close() drains
 * and stops them as SIGTERM would.
 */
export async function startProcessorApp(opts: { redisUrl: string; prefix: string; queues: FixedQueueName[]; providers: Provider[] }): Promise<INestApplicationContext> {
  @Module({})
  class ProcessorTestModule {}
  return NestFactory.createApplicationContext(
    {
      module: ProcessorTestModule,
      imports: [bullRoot({ REDIS_URL: opts.redisUrl, QUEUE_PREFIX: opts.prefix }), registerQueues(opts.prefix, ...opts.queues)],
      providers: opts.providers,
    },
    { logger: ['error', 'warn'], abortOnError: false },
  );
}
