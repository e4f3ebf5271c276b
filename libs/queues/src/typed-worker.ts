import { RateLimiterOptions, Worker } from 'bullmq';
import type { JobRoutes } from './job-routes';
import { QUEUE_DEFAULTS } from './queue-defaults';
import { queuePrefix } from './queue-prefix';
import type { RedisClient } from './redis-connection';
import { observeJobDurations, type JobDurationMetrics } from './job-durations';
import { WORKER_NAME } from './worker-options';

/**
 * A BullMQ worker for a queue whose name is known only at run time (an `agent.<provider>` queue
 * the provider-worker finds in Postgres): @nestjs/bullmq's @Processor classes are found once, at
 * start, so such a queue cannot have one. The same handler table (JobRoutes), failure
 * classification, name and metrics as a TypedProcessor; the caller closes it.
 */
export function startTypedWorker(opts: {
  routes: JobRoutes;
  connection: RedisClient;
  /** The deployment's QUEUE_PREFIX (the queue's hash tag is added here). */
  prefix: string;
  concurrency?: number;
  limiter?: RateLimiterOptions;
  metrics?: JobDurationMetrics;
}): Worker {
  const { routes } = opts;
  const defaults = QUEUE_DEFAULTS[routes.kind].worker;
  const worker = new Worker(routes.queueName, (job, token) => routes.run(job, token), {
    connection: opts.connection,
    prefix: queuePrefix(opts.prefix, routes.queueName),
    ...defaults,
    concurrency: opts.concurrency ?? defaults.concurrency,
    ...(opts.limiter ? { limiter: opts.limiter } : {}),
    name: WORKER_NAME,
  });
  if (opts.metrics) observeJobDurations(worker, routes.queueName, opts.metrics);
  return worker;
}
