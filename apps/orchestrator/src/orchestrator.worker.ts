import { Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobName, QUEUE } from '@roundtable/contracts';
import type { OutboxDispatcher } from '@roundtable/events';
import type { RoundtableMetrics } from '@roundtable/observability';
import { startTypedWorker } from '@roundtable/queues';
import type { OrchestratorStepService } from './orchestrator-step.service';
import { StaleJobError } from './job-to-event';

/**
 * Consumes the `orchestrator` queue: every job is one event for one run, applied by the
 * step service. Also sweeps the outbox for jobs a crash left unsent.
 */
export class OrchestratorWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('orchestrator');
  private worker?: Worker;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly steps: OrchestratorStepService,
    private readonly outbox: OutboxDispatcher,
    private readonly sweepMs: number,
    private readonly concurrency: number,
    private readonly metrics?: RoundtableMetrics,
  ) {}

  onApplicationBootstrap(): void {
    const apply = (name: JobName) => async (payload: { runId: string }, job: Job) => {
      try {
        const outcome = await this.steps.apply(name, payload as Record<string, unknown> & { runId: string }, job.id);
        if (outcome !== 'applied') this.log.debug(`${name} for ${payload.runId}: ${outcome}`);
      } catch (e) {
        if (e instanceof StaleJobError) this.log.warn(e.message);
        throw e; // BullMQ records and retries; the inbox makes the retry safe
      }
    };
    this.worker = startTypedWorker({
      kind: 'orchestrator',
      queueName: QUEUE.orchestrator,
      connection: this.connection,
      prefix: this.prefix,
      concurrency: this.concurrency,
      metrics: this.metrics,
      handlers: {
        'run.start': apply('run.start'),
        'agent.done': apply('agent.done'),
        'workspace.done': apply('workspace.done'),
        'tests.done': apply('tests.done'),
        'run.resume': apply('run.resume'),
        'run.cancel': apply('run.cancel'),
        'run.appeal': apply('run.appeal'),
      },
    });
    this.worker.on('failed', (job, err) => this.log.error(`job ${job?.name} ${job?.id} failed: ${err.message}`));
    this.sweeper = setInterval(() => {
      this.outbox.sweep(this.sweepMs).catch((e: Error) => this.log.error(`outbox sweep: ${e.message}`));
    }, this.sweepMs);
    this.log.log(`consuming queue ${this.prefix}:${QUEUE.orchestrator}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.worker?.close();
  }
}
