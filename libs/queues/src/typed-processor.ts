import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { WorkerHost } from '@nestjs/bullmq';
import type { Job, RateLimiterOptions } from 'bullmq';
import { observeJobDurations, type JobDurationMetrics } from './job-durations';
import type { JobRoutes } from './job-routes';

/** How the worker takes jobs, decided when it starts. */
export interface WorkerStartSettings {
  /** From the service's environment; unset: the kind's default (QUEUE_DEFAULTS). */
  concurrency?: number;
  /** BullMQ's queue-wide rate limit (also what a manual `rateLimit()` needs to take effect). */
  limiter?: RateLimiterOptions;
  /** Where the numbers came from, for the start-up line. */
  source?: string;
}

export interface TypedProcessorSettings extends WorkerStartSettings {
  /** The service's logger context. */
  service: string;
  /** Settings only known at start (read from Postgres, as a provider's rate limit is); they win over the ones above. */
  atStart?: () => Promise<WorkerStartSettings>;
  /** Observes each delivery's duration in roundtable_job_duration_seconds. */
  metrics?: JobDurationMetrics;
}

/**
 * The base of every `@Processor(queue, workerOptionsFor(kind))` class: `process(job)` is the
 * queue's one handler table (JobRoutes, checked complete when the subclass is constructed), so
 * a subclass only says which table and which queue.
 *
 * @nestjs/bullmq creates the Worker (with `autorun: false`); it starts taking jobs here at
 * bootstrap, once every provider exists, with the environment's concurrency. It closes in
 * beforeApplicationShutdown, one phase before @nestjs/bullmq's own close: a job that is
 * finishing still sends its result through queues that close in onApplicationShutdown.
 */
export abstract class TypedProcessor extends WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  protected readonly log: Logger;

  protected constructor(
    protected readonly routes: JobRoutes,
    private readonly settings: TypedProcessorSettings,
  ) {
    super();
    this.log = new Logger(settings.service);
  }

  process(job: Job, token?: string): Promise<void> {
    return this.routes.run(job, token);
  }

  async onApplicationBootstrap(): Promise<void> {
    const worker = this.worker;
    if (worker.name !== this.routes.queueName) {
      // @Processor names the queue the worker takes from, the table the jobs it knows: one queue for both.
      throw new Error(`${this.constructor.name} consumes queue ${worker.name} (its @Processor) with the handler table of ${this.routes.queueName}: give both the same queue`);
    }
    if (!worker.opts.prefix?.endsWith(`:{${worker.name}}`)) {
      // Producers write under the queue's hash-tagged prefix: a worker without it would wait on keys nobody writes.
      throw new Error(
        `${this.constructor.name} consumes queue ${worker.name} under prefix ${worker.opts.prefix}, not the queue's own (queuePrefix): register the queue (registerQueues) or give the @Processor its prefix`,
      );
    }
    const start = { ...this.settings, ...(await this.settings.atStart?.()) };
    if (start.concurrency) {
      worker.concurrency = start.concurrency;
      worker.opts.concurrency = start.concurrency; // what the worker reports, as what it does
    }
    // Read by the worker each time it takes a job, so setting it before run() is setting it at construction.
    if (start.limiter) worker.opts.limiter = start.limiter;
    if (this.settings.metrics) observeJobDurations(worker, this.routes.queueName, this.settings.metrics);
    worker.on('failed', (job, err) => this.log.error(this.failedLine(job, err)));
    worker.on('error', (err) => this.log.error(`queue ${this.routes.queueName}: ${err.message}`));
    worker.run().catch((e: Error) => this.log.error(`the worker of queue ${this.routes.queueName} stopped: ${e.message}`));
    this.log.log(`consuming queue ${worker.opts.prefix}:${this.routes.queueName}${start.source ? ` (${start.source})` : ''}`);
  }

  /** close() waits for the running jobs: they finish and report, none is left to the stalled-job check. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker.close();
  }

  /** The log line of a failed delivery (a subclass may name what the job is about). */
  protected failedLine(job: Job | undefined, err: Error): string {
    return `${job?.name} ${job?.id} failed: ${err.message}`;
  }
}
