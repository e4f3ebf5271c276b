import { createHash } from 'node:crypto';
import { ApiError } from './api-error';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Wide enough for a UUID, a ULID or a client's own `<job>:<attempt>`; narrow enough to sit in a header, a log line and an index. */
const KEY_FORM = /^[A-Za-z0-9._:-]{1,255}$/;

/** A submission's key and who sent it: the same key from two tokens names two runs. */
export interface IdempotencyClaim {
  principal: string;
  key: string;
  requestHash: string;
}

/**
 * The Idempotency-Key header, checked: absent is no key (every submit makes a run); present must
 * be 1–255 of `A–Z a–z 0–9 . _ : -` (two headers arrive joined by ", " and are refused too).
 */
export function idempotencyKeyOf(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!KEY_FORM.test(value)) {
    throw ApiError.badRequest(
      'invalid_idempotency_key',
      `the ${IDEMPOTENCY_HEADER} header must be 1 to 255 characters of A-Z a-z 0-9 . _ : - (got ${value.length} characters${value.length ? ' with others' : ''}); send one key per submission, e.g. a random UUID`,
    );
  }
  return value;
}

/** Stable for the same body sent twice: a JSON object's keys are sorted, YAML text is hashed as sent. */
export function requestHashOf(body: unknown): string {
  return createHash('sha256').update(typeof body === 'string' ? `yaml:${body}` : `json:${canonicalJson(body)}`).digest('hex');
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The same key with another body: the client reused a key, and the run it names is not this request's. */
export function keyReusedError(key: string, runId: string): ApiError {
  return new ApiError(422, {
    error: 'idempotency_key_reused',
    message: `the ${IDEMPOTENCY_HEADER} ${key} was first sent with another body (run ${runId}); send a new ${IDEMPOTENCY_HEADER} for a different submission`,
    run_id: runId,
  });
}
