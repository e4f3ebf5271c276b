import type { JobsOptions, WorkerOptions } from 'bullmq';
import type { QueueKind } from '@roundtable/contracts';

/**
 * Attempts, backoff and locks per queue kind, in one table. Agent calls can take minutes,
 * so their lock is long and a stalled job is retried once before it is failed; the
 * orchestrator's steps are short transactions and may be retried more.
 */
export const QUEUE_DEFAULTS: Record<QueueKind, { job: JobsOptions; worker: Partial<WorkerOptions> }> = {
  orchestrator: {
    job: { attempts: 5, backoff: { type: 'exponential', delay: 200 }, removeOnComplete: 1000, removeOnFail: 5000 },
    worker: { concurrency: 8, lockDuration: 30_000, maxStalledCount: 3 },
  },
  agent: {
    job: { attempts: 3, backoff: { type: 'exponential', delay: 3000 }, removeOnComplete: 1000, removeOnFail: 5000 },
    worker: { concurrency: 4, lockDuration: 10 * 60_000, maxStalledCount: 1 },
  },
  workspace: {
    job: { attempts: 3, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: 1000, removeOnFail: 5000 },
    worker: { concurrency: 2, lockDuration: 60_000, maxStalledCount: 2 },
  },
  tests: {
    job: { attempts: 2, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: 1000, removeOnFail: 5000 },
    worker: { concurrency: 2, lockDuration: 15 * 60_000, maxStalledCount: 1 },
  },
};
