import { ProviderError } from '../provider';

/** What an SDK error tells us, pulled out of whichever shape that SDK throws. */
export interface HttpFailure {
  provider: string;
  status: number;
  /** The provider's own words (the error body's message), never a paraphrase. */
  message: string;
  /** The provider's error type or status word (rate_limit_error, RESOURCE_EXHAUSTED, …). */
  type?: string | null;
  /** A machine code when the body carries one (OpenAI's insufficient_quota). */
  code?: string | null;
  retryAfterS?: number | null;
  requestId?: string | null;
  /**
   * What a 429's structured body says, when the adapter can read one (Gemini's google.rpc
   * details): `rate` = wait and retry, `spent` = a quota or spend limit waiting will not cure.
   * Decides the 429 over the wording rules below, which are for bodies that say less.
   */
  quota?: 'rate' | 'spent' | null;
}

/** Replies that mean "you are out of quota or credit": waiting seconds will not help. */
const USAGE_LIMIT_WORDS = /usage limit|insufficient_quota|credit balance|hit your limit|billing hard limit|spending limit/i;
const QUOTA_WORDS = /quota/i;
/** Gemini answers a bad key with 400 API_KEY_INVALID and xAI with 400 "Incorrect API key provided", not 401. */
const BAD_KEY_WORDS = /API_KEY_INVALID|api key not valid|invalid api key|invalid x-api-key|incorrect api key/i;

function describe(f: HttpFailure): string {
  const type = f.type ? ` ${f.type}` : '';
  const req = f.requestId ? ` (request ${f.requestId})` : '';
  return `${f.provider}: HTTP ${f.status}${type}: ${f.message}${req}`;
}

/**
 * Maps a provider's HTTP failure to a ProviderError. A 429 is a rate limit (retryable, with
 * the provider's retry-after) unless the provider says the quota or credit is spent, which
 * waiting will not cure: that is a usage limit and ends the step.
 */
export function errorFromHttp(f: HttpFailure): ProviderError {
  const msg = describe(f);
  const retryAfter = f.retryAfterS ?? null;
  const words = `${f.message} ${f.type ?? ''} ${f.code ?? ''}`;
  if (f.status === 429 && f.quota === 'spent') return new ProviderError('USAGE_LIMIT', msg, false, f.status);
  if (f.status === 429 && f.quota === 'rate') return new ProviderError('RATE_LIMITED', msg, true, f.status, retryAfter);
  if (f.code === 'insufficient_quota' || USAGE_LIMIT_WORDS.test(words)) {
    return new ProviderError('USAGE_LIMIT', msg, false, f.status);
  }
  if (f.status === 401 || f.status === 403 || BAD_KEY_WORDS.test(words)) return new ProviderError('AUTH', msg, false, f.status);
  if (f.status === 429) {
    if (retryAfter === null && QUOTA_WORDS.test(words)) return new ProviderError('USAGE_LIMIT', msg, false, f.status);
    return new ProviderError('RATE_LIMITED', msg, true, f.status, retryAfter);
  }
  if (QUOTA_WORDS.test(words)) return new ProviderError('USAGE_LIMIT', msg, false, f.status);
  if (f.status === 404) return new ProviderError('NOT_FOUND', msg, false, f.status);
  if (f.status === 408) return new ProviderError('TIMEOUT', msg, true, f.status);
  if (f.status >= 500) return new ProviderError('SERVER_ERROR', msg, true, f.status, retryAfter);
  return new ProviderError('BAD_REQUEST', msg, false, f.status);
}

function errorChain(e: unknown): Error[] {
  const out: Error[] = [];
  let cur: unknown = e;
  // duck-typed, not instanceof: errors thrown by fetch may come from another realm (jest's vm)
  while (cur !== null && typeof cur === 'object' && typeof (cur as Error).message === 'string' && out.length < 5) {
    out.push(cur as Error);
    cur = (cur as Error & { cause?: unknown }).cause;
  }
  return out;
}

/**
 * Maps a failure that never produced an HTTP status: the timeout we set, a refused or reset
 * connection, a body that is not JSON. All of these may pass on a retry.
 */
export function errorFromTransport(provider: string, e: unknown, timeoutMs: number, endpoint: string, elapsedMs = 0): ProviderError {
  const chain = errorChain(e);
  const names = chain.map((x) => `${x.name} ${x.constructor?.name ?? ''}`).join(' ');
  // A connection that failed at our deadline was our timeout, however the SDK words it
  // (an abort crossing a realm boundary, as under jest, loses its AbortError name).
  if (/Timeout|AbortError/.test(names) || (elapsedMs > 0 && elapsedMs >= timeoutMs)) {
    return new ProviderError('TIMEOUT', `${provider}: no reply from ${endpoint} within ${timeoutMs} ms`, true);
  }
  const sys = chain.map((x) => (x as Error & { code?: unknown }).code).find((c) => typeof c === 'string');
  if (/Connection/.test(names) || sys || chain.some((x) => /fetch failed|socket|ECONN|network/i.test(x.message))) {
    const why = sys ?? chain[chain.length - 1]?.message ?? 'connection failed';
    return new ProviderError('NETWORK', `${provider}: cannot reach ${endpoint}: ${why}`, true);
  }
  if (chain.some((x) => x.name === 'SyntaxError' || /is not valid JSON|Unexpected (token|end of JSON)/.test(x.message))) {
    return new ProviderError('PROVIDER_ERROR', `${provider}: ${endpoint} sent a reply that is not valid JSON: ${chain[0].message}`, true);
  }
  const first = chain[0];
  return new ProviderError('PROVIDER_ERROR', `${provider}: ${first ? first.message : String(e)}`, false);
}

/** Seconds from `retry-after-ms` / `retry-after` (seconds or an HTTP date), or null. */
export function retryAfterFromHeaders(headers: Headers | null | undefined): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms) / 1000);
  const ra = headers.get('retry-after');
  if (!ra) return null;
  if (Number.isFinite(Number(ra))) return Math.max(0, Number(ra));
  const at = Date.parse(ra);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** Removes a secret from text that is about to be stored or shown. */
export function redactSecret<T extends string | null>(text: T, secret: string | null | undefined): T {
  if (text === null || !secret || secret.length < 4) return text;
  return text.split(secret).join('[redacted]') as T;
}

/** The same error with a secret scrubbed from its message (SDK messages may echo a key). */
export function redactError(e: ProviderError, secret: string | null | undefined): ProviderError {
  const message = redactSecret(e.message, secret);
  if (message === e.message) return e;
  return new ProviderError(e.code, message, e.retryable, e.httpStatus, e.retryAfterS);
}
