import type { ProviderError } from '@roundtable/providers';

export interface RetryPlan {
  delayMs: number;
  /** A 429: the whole `agent.<provider>` queue backs off, not just this call. */
  rateLimited: boolean;
}

/**
 * Whether a failed try is tried again, and after how long. Only a retryable ProviderError
 * (network, 5xx, 429, timeout) is, at most once per configured delay; a 429 waits the
 * provider's own retry-after when it sent one. Usage limits, credentials, unknown models
 * and schema failures never are.
 */
export function retryPlan(err: ProviderError, retriesSoFar: number, delaysMs: readonly number[]): RetryPlan | null {
  if (!err.retryable || retriesSoFar >= delaysMs.length) return null;
  const rateLimited = err.code === 'RATE_LIMITED';
  const hinted = rateLimited && err.retryAfterS !== null && Number.isFinite(err.retryAfterS) ? Math.round(err.retryAfterS * 1000) : null;
  return { delayMs: Math.max(0, hinted ?? delaysMs[retriesSoFar]), rateLimited };
}

/** The error as stored on the row: the provider's words, with the HTTP status when the words lack it. */
export function recordedError(err: ProviderError): string {
  if (err.httpStatus === null || err.message.includes(String(err.httpStatus))) return err.message;
  return `${err.message} (HTTP ${err.httpStatus})`;
}
