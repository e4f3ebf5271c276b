import { Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobName, QUEUE } from '@roundtable/contracts';
import type { OutboxDispatcher } from '@roundtable/events';
import type { RoundtableMetrics } from '@roundtable/observability';
import { startTypedWorker } from '@roundtable/queues';
import type { OrchestratorStepService } from './orchestrator-step.service';
import { StaleJobError } from './job-to-event';
import type { RunReconciler } from './reconciler/run-reconciler';

/**
 * Consumes the `orchestrator` queue: every job is one event for one run, applied by the
 * step service. Also sweeps the outbox for jobs a crash left unsent, and runs the reconciler
 * (jobs Redis lost, runs left with nothing in flight) every `reconcileMs`.
 */
export class OrchestratorWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('orchestrator');
  private worker?: Worker;
  private sweeper?: NodeJS.Timeout;
  private reconcileTimer?: NodeJS.Timeout;
  private reconciling: Promise<void> | null = null;

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly steps: OrchestratorStepService,
    private readonly outbox: OutboxDispatcher,
    private readonly sweepMs: number,
    private readonly concurrency: number,
    private readonly metrics?: RoundtableMetrics,
    private readonly reconciler?: RunReconciler,
    private readonly reconcileMs = 0,
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
    if (this.reconciler && this.reconcileMs > 0) this.reconcileTimer = setInterval(() => this.reconcile(), this.reconcileMs);
    this.log.log(`consuming queue ${this.prefix}:${QUEUE.orchestrator}`);
  }

  /** One sweep at a time per process (a slow sweep is not stacked on); replicas take turns by the sweep lock. */
  private reconcile(): void {
    if (this.reconciling || !this.reconciler) return;
    this.reconciling = this.reconciler
      .sweep()
      .then((r) => {
        if (r.resent.length || r.retried.length || r.halted.length) {
          this.log.warn(
            `reconciler: ${r.resent.length} job(s) Redis did not have sent again, ${r.retried.length} failed job(s) retried, ${r.halted.length} run(s) halted` +
              [...r.resent, ...r.retried].map((j) => ` ${j.queue}/${j.jobId}`).join('') +
              r.halted.map((h) => ` halted ${h.runId}: ${h.reason}`).join(''),
          );
        }
      })
      .catch((e: Error) => this.log.error(`reconciler: ${e.message}`))
      .finally(() => (this.reconciling = null));
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    await this.reconciling;
    await this.worker?.close();
  }
}
