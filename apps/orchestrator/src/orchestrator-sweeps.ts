import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { OutboxDispatcher } from '@roundtable/service';
import type { RunReconciler } from './reconciler/run-reconciler';

/**
 * The orchestrator's timers beside its queue: the outbox sweep re-sends jobs a crash left
 * unsent, and the reconciler (jobs Redis lost, runs left with nothing in flight) runs every
 * `reconcileMs`. Both stop before the worker drains; a sweep in progress is waited for.
 */
export class OrchestratorSweeps implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('orchestrator');
  private sweeper?: NodeJS.Timeout;
  private reconcileTimer?: NodeJS.Timeout;
  private reconciling: Promise<void> | null = null;

  constructor(
    private readonly outbox: OutboxDispatcher,
    private readonly sweepMs: number,
    private readonly reconciler?: RunReconciler,
    private readonly reconcileMs = 0,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper = setInterval(() => {
      this.outbox.sweep(this.sweepMs).catch((e: Error) => this.log.error(`outbox sweep: ${e.message}`));
    }, this.sweepMs);
    if (this.reconciler && this.reconcileMs > 0) this.reconcileTimer = setInterval(() => this.reconcile(), this.reconcileMs);
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
  }
}
