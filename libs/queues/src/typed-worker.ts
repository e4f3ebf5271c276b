import { hostname } from 'node:os';
import { Job, RateLimiterOptions, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobName, JobOf, QueueKind, jobNamesOf, jobSchema } from '@roundtable/contracts';
import type { RoundtableMetrics } from '@roundtable/observability';
import { QUEUE_DEFAULTS } from './queue-defaults';

/**
 * BullMQ stores the worker's name on every job it takes (`processedBy`), so Bull Board and an
 * operator can tell which process ran, or is running, a job: host (the pod's name in Kubernetes) and pid.
 */
export const WORKER_NAME = `${hostname()}:${process.pid}`;

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
  /** Observes each delivery's duration in roundtable_job_duration_seconds. */
  metrics?: RoundtableMetrics;
}): Worker {
  const missing = jobNamesOf(opts.kind).filter((n) => !opts.handlers[n]);
  if (missing.length) {
    throw new Error(`worker for queue ${opts.queueName} has no handler for: ${missing.join(', ')}`);
  }
  const defaults = QUEUE_DEFAULTS[opts.kind].worker;
  const worker = new Worker(
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
      name: WORKER_NAME,
    },
  );
  if (opts.metrics) observeJobDurations(worker, opts.queueName, opts.metrics);
  return worker;
}

/**
 * One sample per delivery that ends: `completed`, or `failed` (each failed attempt, retried or not).
 * A job moved back to wait or delayed (rate limit, provider backoff) emits neither and is not counted.
 */
function observeJobDurations(worker: Worker, queue: string, metrics: RoundtableMetrics): void {
  const observe = (job: Job | undefined, outcome: 'completed' | 'failed') => {
    if (!job?.processedOn) return;
    const seconds = Math.max(0, ((job.finishedOn ?? Date.now()) - job.processedOn) / 1000);
    metrics.jobDuration.observe({ queue, name: job.name, outcome }, seconds);
  };
  worker.on('completed', (job) => observe(job, 'completed'));
  worker.on('failed', (job) => observe(job, 'failed'));
}
