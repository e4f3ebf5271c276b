import { cliFailure } from '../cli/cli-failure';
import { errorFromHttp, errorFromTransport, redactError, retryAfterFromHeaders } from './http-error';
import { ProviderError } from '../provider';

describe('errorFromHttp', () => {
  const f = (status: number, message: string, extra: Partial<Parameters<typeof errorFromHttp>[0]> = {}) =>
    errorFromHttp({ provider: 'p', status, message, ...extra });

  it('makes a 429 a retryable rate limit carrying retry-after', () => {
    const e = f(429, 'slow down', { type: 'rate_limit_error', retryAfterS: 7, requestId: 'req_1' });
    expect(e).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429, retryAfterS: 7 });
    expect(e.message).toBe('p: HTTP 429 rate_limit_error: slow down (request req_1)');
  });

  it('tells a spent quota from a rate limit', () => {
    expect(f(429, 'You exceeded your current quota, please check your plan and billing details.', { code: 'insufficient_quota' })).toMatchObject({
      code: 'USAGE_LIMIT',
      retryable: false,
      httpStatus: 429,
    });
    // Gemini's per-minute quota says "quota" too, but tells when to retry
    expect(f(429, 'You exceeded your current quota. Please retry in 2s.', { retryAfterS: 2 })).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(f(429, 'You exceeded your current quota.')).toMatchObject({ code: 'USAGE_LIMIT', retryable: false });
    expect(f(400, 'You have reached your specified API usage limits.')).toMatchObject({ code: 'USAGE_LIMIT', httpStatus: 400 });
  });

  it("lets a 429's structured verdict (Gemini's google.rpc details) decide over its wording", () => {
    expect(f(429, 'Resource has been exhausted (e.g. check quota).', { quota: 'rate', retryAfterS: null })).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterS: null });
    expect(f(429, 'You exceeded your current quota. Please retry in 9h54m.', { quota: 'spent', retryAfterS: 35640 })).toMatchObject({
      code: 'USAGE_LIMIT',
      retryable: false,
      retryAfterS: null,
    });
  });

  it.each([
    [401, 'bad key', 'AUTH', false],
    [403, 'forbidden', 'AUTH', false],
    [400, 'API key not valid. Please pass a valid API key.', 'AUTH', false],
    [400, 'Incorrect API key provided: xai-…. You can obtain an API key from https://console.x.ai.', 'AUTH', false],
    [404, 'model: nope', 'NOT_FOUND', false],
    [400, 'max_tokens too large', 'BAD_REQUEST', false],
    [408, 'timeout', 'TIMEOUT', true],
    [500, 'Internal server error', 'SERVER_ERROR', true],
    [529, 'Overloaded', 'SERVER_ERROR', true],
  ])('maps HTTP %i (%s) to %s', (status, message, code, retryable) => {
    const e = f(status, message);
    expect(e).toMatchObject({ code, retryable, httpStatus: status });
    expect(e.message).toContain(message);
  });
});

describe('errorFromTransport', () => {
  it('calls an abort a timeout and a refused connection a network error, both retryable', () => {
    const abort = new Error('This operation was aborted');
    abort.name = 'AbortError';
    expect(errorFromTransport('p', abort, 250, 'http://x')).toMatchObject({ code: 'TIMEOUT', retryable: true, message: 'p: no reply from http://x within 250 ms' });
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect(errorFromTransport('p', refused, 250, 'http://x')).toMatchObject({ code: 'NETWORK', retryable: true, message: 'p: cannot reach http://x: ECONNREFUSED' });
  });
});

it('reads retry-after in seconds, milliseconds and as a date', () => {
  expect(retryAfterFromHeaders(new Headers({ 'retry-after': '12' }))).toBe(12);
  expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1.5);
  const inTen = new Date(Date.now() + 10_000).toUTCString();
  expect(retryAfterFromHeaders(new Headers({ 'retry-after': inTen }))).toBeGreaterThanOrEqual(9);
  expect(retryAfterFromHeaders(new Headers())).toBeNull();
});

it('redacts a key from an error message', () => {
  const e = redactError(new ProviderError('AUTH', 'Incorrect API key provided: sk-secret-123.', false, 401), 'sk-secret-123');
  expect(e.message).toBe('Incorrect API key provided: [redacted].');
  expect(e).toMatchObject({ code: 'AUTH', httpStatus: 401 });
});

describe('cliFailure', () => {
  it.each([
    ["You've hit your limit · resets 5pm (UTC)", 'USAGE_LIMIT', false],
    ["You've hit your usage limit. Upgrade to Pro, or try again in 2 days 3 hours.", 'USAGE_LIMIT', false],
    ["Quota exceeded for quota metric 'Gemini 2.5 Pro Requests'", 'USAGE_LIMIT', false],
    ['5-hour limit reached ∙ resets 3pm', 'USAGE_LIMIT', false],
    ['API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}', 'RATE_LIMITED', true],
    ['rate limit exceeded', 'RATE_LIMITED', true],
    ['Invalid API key · Please run /login', 'AUTH', false],
    ['unexpected status 401 Unauthorized: Your authentication token has expired.', 'AUTH', false],
    ["unexpected status 404 Not Found: The model 'x' does not exist", 'NOT_FOUND', false],
    ['API Error: 500 Internal server error', 'SERVER_ERROR', true],
    ['stream disconnected before completion', 'NETWORK', true],
    ['IneligibleTierError: This client is no longer supported', 'CLI_FAILED', false],
  ])('%s → %s', (words, code, retryable) => {
    const e = cliFailure('prov', 'claude', words, 1);
    expect(e).toMatchObject({ code, retryable });
    expect(e.message).toBe(`prov (claude CLI, exit 1): ${words}`);
  });

  it('keeps the HTTP status the CLI quotes', () => {
    expect(cliFailure('p', 'claude', 'API Error: 500 oops', 1).httpStatus).toBe(500);
  });
});
