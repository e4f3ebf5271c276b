import type { JobsOptions, WorkerOptions } from 'bullmq';
import type { QueueKind } from '@roundtable/contracts';

/**
 * Attempts, backoff and locks per queue kind, in one table.
 *
 * Locks are not sized to the job. A worker renews its job's lock every lockDuration / 2 for as long as
 * the job runs, so an LLM call may take ten minutes under a 60 s lock. What lockDuration decides is
 * how soon a job whose worker died (OOM, node lost, SIGKILL after the grace period) is noticed: the
 * stalled checker (every stalledInterval) moves a job whose lock has expired back to wait, so a dead
 * worker's job is taken again after at most lockDuration + stalledInterval (~90 s here). A longer lock
 * would only make that wait longer; a shorter one risks a false stall if the event loop ever stalls
 * for lockDuration / 2 (the workers do I/O, never seconds of CPU on one tick).
 *
 * maxStalledCount is how many such recoveries a job gets before it is failed. An agent call that
 * stalled may already have reached the provider and been billed, and a call that stalls twice is more
 * likely killing its worker than unlucky, so agent jobs get one recovery. Orchestrator steps are
 * short, idempotent transactions (applied_events), and tests and workspace ops cost only time, so
 * they get more.
 *
 * A graceful stop (SIGTERM → Worker.close()) is not a stall: it takes no new jobs and waits for the
 * running ones, so a deployment's terminationGracePeriodSeconds must exceed the longest agent call
 * (its timeout_s plus the adapter backstop) and the longest test run.
 */
export interface InfraRetry {
  /** How many times a job is delayed and tried again for an infrastructure error before it counts as an attempt. */
  retries: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

/**
 * Postgres or Redis unreachable (isInfraError) is not the job's fault, so it does not spend the job's
 * `attempts`: the job is delayed and tried again, doubling from firstDelayMs up to maxDelayMs. The
 * numbers below wait about 8 minutes in all (1+2+4+8+16 s, then 30 s each), longer than a database
 * restart or a failover takes; after that the error counts as an ordinary attempt. A job whose worker
 * cannot reach Redis at all cannot be delayed either: it stalls and the stalled checker takes it back
 * (or the orchestrator's reconciler resends it from its rows).
 */
const INFRA_RETRY: InfraRetry = { retries: 20, firstDelayMs: 1000, maxDelayMs: 30_000 };

/** The delay before the n-th (1-based) infrastructure retry. */
export function infraRetryDelayMs(n: number, r: InfraRetry): number {
  return Math.min(r.maxDelayMs, r.firstDelayMs * 2 ** Math.max(0, n - 1));
}

export const QUEUE_DEFAULTS: Record<QueueKind, { job: JobsOptions; worker: Partial<WorkerOptions>; infra: InfraRetry }> = {
  orchestrator: {
    job: { attempts: 5, backoff: { type: 'exponential', delay: 200 }, removeOnComplete: 1000, removeOnFail: 5000 },
    worker: { concurrency: 8, lockDuration: 30_000, stalledInterval: 30_000, maxStalledCount: 3 },
    infra: INFRA_RETRY,
  },
  agent: {
    job: { attempts: 3, backoff: { type: 'exponential', delay: 3000 }, removeOnComplete: 1000, removeOnFail: 5000 },
    worker: { concurrency: 4, lockDuration: 60_000, stalledInterval: 30_000, maxStalledCount: 1 },
    infra: INFRA_RETRY,
  },
  workspace: {
    job: { attempts: 3, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: 1000, removeOnFail: 5000 },
    worker: { concurrency: 2, lockDuration: 60_000, stalledInterval: 30_000, maxStalledCount: 2 },
    infra: INFRA_RETRY,
  },
  tests: {
    job: { attempts: 2, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: 1000, removeOnFail: 5000 },
    worker: { concurrency: 2, lockDuration: 60_000, stalledInterval: 30_000, maxStalledCount: 2 },
    infra: INFRA_RETRY,
  },
};
