import { hostname } from 'node:os';
import { DelayedError, Job, RateLimitError, RateLimiterOptions, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobName, JobOf, QueueKind, jobNamesOf, jobSchema } from '@roundtable/contracts';
import type { RoundtableMetrics } from '@roundtable/observability';
import { infraRetryDelayMs, QUEUE_DEFAULTS, type InfraRetry } from './queue-defaults';
import { isInfraError, isPermanentJobError } from './infra-error';

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
      try {
        await handler(parsed.data, job, token);
      } catch (e) {
        throw await classifyFailure(e, job, token, QUEUE_DEFAULTS[opts.kind].infra);
      }
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
 * What a handler's error becomes. Postgres or Redis unreachable: the job is delayed and tried
 * again (INFRA_RETRY) without spending an attempt, for as long as a restart takes. A row that
 * does not exist: UnrecoverableError, failed at once. Anything else: as thrown, for BullMQ's
 * attempts and backoff. BullMQ's own DelayedError / RateLimitError pass through.
 *
 * The infrastructure retries so far are the deliveries that ended in neither success nor a
 * counted failure (attemptsStarted - attemptsMade); an agent job's provider backoffs (also
 * delays) count among them, which only brings the last counted attempt a little nearer.
 */
async function classifyFailure(e: unknown, job: Job, token: string | undefined, infra: InfraRetry): Promise<unknown> {
  if (e instanceof DelayedError || e instanceof UnrecoverableError || e instanceof RateLimitError) return e;
  if (isPermanentJobError(e)) return new UnrecoverableError(`${(e as Error).message} (a retry cannot make it exist)`);
  if (!isInfraError(e) || !token) return e;
  const n = Math.max(1, (job.attemptsStarted ?? 1) - job.attemptsMade);
  if (n > infra.retries) return e;
  try {
    await job.moveToDelayed(Date.now() + infraRetryDelayMs(n, infra), token);
  } catch {
    return e; // Redis is what is down: the job stalls, and the stalled checker or the reconciler takes it back
  }
  return new DelayedError(`infrastructure error, retry ${n} of ${infra.retries}: ${(e as Error).message}`);
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
