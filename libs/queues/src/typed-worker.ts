import { Job, RateLimiterOptions, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobName, JobOf, QueueKind, jobNamesOf, jobSchema } from '@roundtable/contracts';
import { QUEUE_DEFAULTS } from './queue-defaults';


/** `token` is the job's lock token, for handlers that move their own job (moveToDelayed). */
export type HandlerTable = Partial<{ [N in JobName]: (payload: JobOf<N>, job: Job, token?: string) => Promise<void> }>;

/**
 * Starts a BullMQ worker whose routing is one table (job name → handler). Boot-time
 * completeness: a worker missing a handler for any job its queue kind can carry refuses
 * to start, rather than failing jobs one by one in production.
 */
export function startTypedWorker(opts: {
  kind: QueueKind;
  queueName: string;
  connection: Redis;
  prefix: string;
  handlers: HandlerTable;
  concurrency?: number;
  /** BullMQ's queue-wide rate limit (also what a manual `rateLimit()` needs to take effect). */
  limiter?: RateLimiterOptions;
}): Worker {
  const missing = jobNamesOf(opts.kind).filter((n) => !opts.handlers[n]);
  if (missing.length) {
    throw new Error(`worker for queue ${opts.queueName} has no handler for: ${missing.join(', ')}`);
  }
  const defaults = QUEUE_DEFAULTS[opts.kind].worker;
  return new Worker(
    opts.queueName,
    async (job: Job, token?: string) => {
      const handler = opts.handlers[job.name as JobName] as ((p: unknown, j: Job, t?: string) => Promise<void>) | undefined;
      if (!handler) throw new UnrecoverableError(`no handler for job ${job.name} on ${opts.queueName}`);
      const parsed = jobSchema(job.name as JobName).safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`bad payload for ${job.name}: ${parsed.error.message}`);
      await handler(parsed.data, job, token);
    },
    {
      connection: opts.connection,
      prefix: opts.prefix,
      ...defaults,
      concurrency: opts.concurrency ?? defaults.concurrency,
      ...(opts.limiter ? { limiter: opts.limiter } : {}),
    },
  );
}
