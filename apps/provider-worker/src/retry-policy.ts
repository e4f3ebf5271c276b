import type { ProviderError } from '@roundtable/providers';

/**
 * What the provider-worker says about a failed try, and nothing more: whether it is worth
 * asking again, and after how long the provider asked to be left alone. Whether it IS asked
 * again is the orchestrator's engine's decision (libs/workflow/src/engine/retries.ts): a retry is
 * a call like any other, budget-checked and reserved, enqueued delayed.
 */
export interface FailedTryReport {
  /** Network, 5xx, 429, timeout, interrupted: the same request may well succeed later. Usage limits, credentials, unknown models, schema failures: never. */
  retryable: boolean;
  /** A 429's retry-after, in ms (the engine waits that long instead of its backoff); null: no hint, or not a 429. */
  retryAfterMs: number | null;
  /**
   * A 429: how long the whole `agent.<provider>` queue backs off, so every call to that provider
   * waits, not just this one: the provider's retry-after, else the backoff for this try's retry
   * number (PROVIDER_RETRY_DELAYS_MS). Null: not a 429, or no retries left.
   */
  rateLimitMs: number | null;
}

export function failedTryReport(err: ProviderError, retriesSoFar: number, delaysMs: readonly number[]): FailedTryReport {
  const hinted = err.retryAfterS !== null && Number.isFinite(err.retryAfterS) ? Math.max(0, Math.round(err.retryAfterS * 1000)) : null;
  // Only a 429's retry-after is honoured (as before the engine took retries over): a 5xx's may be a proxy's guess.
  const rateLimited = err.retryable && err.code === 'RATE_LIMITED';
  const retryAfterMs = rateLimited ? hinted : null;
  const retriesLeft = retriesSoFar < delaysMs.length;
  const rateLimitMs = rateLimited && retriesLeft ? Math.max(0, hinted ?? delaysMs[retriesSoFar]) : null;
  return { retryable: err.retryable, retryAfterMs, rateLimitMs };
}

/** The error as stored on the row: the provider's words, with the HTTP status when the words lack it. */
export function recordedError(err: ProviderError): string {
  if (err.httpStatus === null || err.message.includes(String(err.httpStatus))) return err.message;
  return `${err.message} (HTTP ${err.httpStatus})`;
}
