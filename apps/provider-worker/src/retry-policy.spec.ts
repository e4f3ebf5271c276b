import { ProviderError } from '@roundtable/providers';
import { failedTryReport, recordedError } from './retry-policy';

const DELAYS = [3000, 9000, 27000];

describe('failedTryReport', () => {
  it.each(['NETWORK', 'SERVER_ERROR', 'TIMEOUT'] as const)('a %s is retryable; the queue is not rate limited for it', (code) => {
    const err = new ProviderError(code, 'x', true, code === 'SERVER_ERROR' ? 503 : null);
    expect([0, 1, 2, 3].map((n) => failedTryReport(err, n, DELAYS))).toEqual(Array(4).fill({ retryable: true, retryAfterMs: null, rateLimitMs: null }));
  });

  it("only a 429's retry-after is passed on: a 5xx waits the engine's backoff", () => {
    expect(failedTryReport(new ProviderError('SERVER_ERROR', 'x', true, 503, 4), 0, DELAYS)).toEqual({ retryable: true, retryAfterMs: null, rateLimitMs: null });
  });

  it('a 429 rate-limits the queue for the provider retry-after, else for the backoff of that retry', () => {
    expect(failedTryReport(new ProviderError('RATE_LIMITED', 'x', true, 429, 12), 0, DELAYS)).toEqual({ retryable: true, retryAfterMs: 12000, rateLimitMs: 12000 });
    expect(failedTryReport(new ProviderError('RATE_LIMITED', 'x', true, 429, null), 1, DELAYS)).toEqual({ retryable: true, retryAfterMs: null, rateLimitMs: 9000 });
  });

  it('with no retries left, a 429 does not hold the queue back (no retry will come)', () => {
    expect(failedTryReport(new ProviderError('RATE_LIMITED', 'x', true, 429, 12), 3, DELAYS).rateLimitMs).toBeNull();
    expect(failedTryReport(new ProviderError('RATE_LIMITED', 'x', true, 429, null), 0, []).rateLimitMs).toBeNull();
  });

  it.each(['USAGE_LIMIT', 'AUTH', 'NOT_FOUND', 'BAD_REQUEST', 'CLI_FAILED'] as const)('%s is not retryable', (code) => {
    expect(failedTryReport(new ProviderError(code, 'x', false, 400, 30), 0, DELAYS)).toEqual({ retryable: false, retryAfterMs: null, rateLimitMs: null });
  });
});

describe('recordedError', () => {
  it('keeps the provider words and adds the HTTP status only when the words lack it', () => {
    expect(recordedError(new ProviderError('AUTH', 'anthropic: HTTP 401 authentication_error: invalid x-api-key', false, 401))).toBe(
      'anthropic: HTTP 401 authentication_error: invalid x-api-key',
    );
    expect(recordedError(new ProviderError('USAGE_LIMIT', "claude_cli (claude CLI, exit 1): You've hit your limit", false, 429))).toBe(
      "claude_cli (claude CLI, exit 1): You've hit your limit (HTTP 429)",
    );
    expect(recordedError(new ProviderError('TIMEOUT', 'no reply within 1000 ms', true))).toBe('no reply within 1000 ms');
  });
});
