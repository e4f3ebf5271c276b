import { DelayedError, Job, RateLimitError, UnrecoverableError } from 'bullmq';
import { infraRetryDelayMs, type InfraRetry } from './queue-defaults';
import { isInfraError, isPermanentJobError } from './infra-error';

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
export async function classifyFailure(e: unknown, job: Job, token: string | undefined, infra: InfraRetry): Promise<unknown> {
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
