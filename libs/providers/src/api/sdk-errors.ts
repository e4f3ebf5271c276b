import type { ProviderError } from '../provider';
import { errorFromHttp, errorFromTransport, redactError, retryAfterFromHeaders } from '../errors/http-error';

/** The fields Anthropic's and OpenAI's SDK errors share (both are Stainless-generated). */
interface StainlessApiError extends Error {
  status?: number;
  headers?: Headers;
  error?: unknown;
  requestID?: string | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * Maps an @anthropic-ai/sdk or openai SDK error. Both put the HTTP status on `status` and
 * the parsed body on `error` (Anthropic: `{type, error: {type, message}}`; OpenAI:
 * `{message, type, code}`; xAI: a string); transport failures have no status.
 */
export function errorFromStainless(provider: string, e: unknown, timeoutMs: number, endpoint: string, secret: string, elapsedMs = 0): ProviderError {
  const err = e as StainlessApiError;
  if (!(e instanceof Error) || typeof err.status !== 'number') {
    return redactError(errorFromTransport(provider, e, timeoutMs, endpoint, elapsedMs), secret);
  }
  const body = isObj(err.error) ? err.error : {};
  const inner = isObj(body.error) ? body.error : body;
  // xAI's body is `{code, error: "<its words>"}`: the SDK's `error` is then the words themselves.
  const message = str(inner.message) ?? str(err.error) ?? err.message;
  const mapped = errorFromHttp({
    provider,
    status: err.status,
    message,
    type: str(inner.type),
    code: str(inner.code),
    retryAfterS: retryAfterFromHeaders(err.headers),
    requestId: err.requestID ?? err.headers?.get('x-request-id') ?? null,
  });
  return redactError(mapped, secret);
}
