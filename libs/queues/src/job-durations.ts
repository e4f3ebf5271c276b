import type { Job, Worker } from 'bullmq';

/**
 * Where a worker's delivery durations go: the shape of RoundtableMetrics' `jobDuration` histogram
 * (libs/observability, roundtable_job_duration_seconds), written here rather than imported, so
 * the queue plumbing depends on the contracts alone (the boundaries table, README.md); the
 * service passes its RoundtableMetrics, which has this shape.
 */
export interface JobDurationMetrics {
  jobDuration: { observe(labels: { queue: string; name: string; outcome: 'completed' | 'failed' }, seconds: number): void };
}

/**
 * One sample per delivery that ends: `completed`, or `failed` (each failed attempt, retried or not).
 * A job moved back to wait or delayed (rate limit, provider backoff) emits neither and is not counted.
 */
export function observeJobDurations(worker: Worker, queue: string, metrics: JobDurationMetrics): void {
  const observe = (job: Job | undefined, outcome: 'completed' | 'failed') => {
    if (!job?.processedOn) return;
    const seconds = Math.max(0, ((job.finishedOn ?? Date.now()) - job.processedOn) / 1000);
    metrics.jobDuration.observe({ queue, name: job.name, outcome }, seconds);
  };
  worker.on('completed', (job) => observe(job, 'completed'));
  worker.on('failed', (job) => observe(job, 'failed'));
}
