import { ProviderError } from '@roundtable/providers';
import { recordedError, retryPlan } from './retry-policy';

const DELAYS = [3000, 9000, 27000];

describe('retryPlan', () => {
  it.each(['NETWORK', 'SERVER_ERROR', 'TIMEOUT'] as const)('retries a retryable %s after the configured backoff for that try', (code) => {
    const err = new ProviderError(code, 'x', true, code === 'SERVER_ERROR' ? 503 : null);
    expect([0, 1, 2].map((n) => retryPlan(err, n, DELAYS))).toEqual([
      { delayMs: 3000, rateLimited: false },
      { delayMs: 9000, rateLimited: false },
      { delayMs: 27000, rateLimited: false },
    ]);
  });

  it('stops after one retry per configured delay', () => {
    expect(retryPlan(new ProviderError('SERVER_ERROR', 'x', true, 500), 3, DELAYS)).toBeNull();
    expect(retryPlan(new ProviderError('SERVER_ERROR', 'x', true, 500), 0, [])).toBeNull();
  });

  it('a 429 rate-limits the queue for the provider retry-after, else for the backoff', () => {
    expect(retryPlan(new ProviderError('RATE_LIMITED', 'x', true, 429, 12), 0, DELAYS)).toEqual({ delayMs: 12000, rateLimited: true });
    expect(retryPlan(new ProviderError('RATE_LIMITED', 'x', true, 429, null), 1, DELAYS)).toEqual({ delayMs: 9000, rateLimited: true });
  });

  it.each(['USAGE_LIMIT', 'AUTH', 'NOT_FOUND', 'BAD_REQUEST', 'CLI_FAILED'] as const)('never retries %s', (code) => {
    expect(retryPlan(new ProviderError(code, 'x', false, 400), 0, DELAYS)).toBeNull();
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
