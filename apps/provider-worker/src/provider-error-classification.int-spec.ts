import { agentJsonSchema } from '@roundtable/contracts';
import { createProvider, ProviderError } from '@roundtable/providers';
import type { ProviderRequest } from '@roundtable/providers';
import { exposeUndiciDispatcherToTestRealm, startFakeLlmServer } from '@roundtable/testing';
import type { FakeLlmServer, FakeScriptEntryInput } from '@roundtable/testing';
import { failedTryReport } from './retry-policy';

/**
 * Issue 15 §3: error replies as the real providers send them (bodies and headers), through
 * the real SDKs over HTTP, to what the provider-worker reports of the try: the error code,
 * `retryable`, and the `retry_after_ms` the engine waits (failedTryReport).
 */

const KEY = 'test-key-0123456789abcdef';
const DELAYS = [3000, 9000, 27000];
let server: FakeLlmServer;

type Wire = 'gemini' | 'xai' | 'ollama';
type Http = NonNullable<FakeScriptEntryInput['http']>;

async function failedTry(wire: Wire, http: Http) {
  server = await startFakeLlmServer({ script: { replies: [{ role: '*', http }] } });
  const env = { TEST_KEY: KEY };
  const provider =
    wire === 'gemini'
      ? createProvider('gemini', { type: 'gemini', api_key_env: 'TEST_KEY', base_url: server.baseUrls.gemini }, { env })
      : wire === 'xai'
        ? createProvider('xai', { type: 'openai_compat', api_key_env: 'TEST_KEY', base_url: server.baseUrls.openai }, { env })
        : createProvider('local', { type: 'ollama', host: server.baseUrls.ollama });
  const err = await provider.run(request()).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  expect(server.requests).toHaveLength(1); // one try: the SDKs' own retries are off
  const e = err as ProviderError;
  const { retryable, retryAfterMs } = failedTryReport(e, 0, DELAYS);
  return { code: e.code, retryable, retry_after_ms: retryAfterMs, message: e.message };
}

function request(): ProviderRequest {
  return {
    messages: [{ role: 'user', content: 'Objective: compute the maximum drawdown of an equity series.' }],
    model: 'gemini-2.5-pro',
    schemaName: 'Proposal',
    jsonSchema: agentJsonSchema('Proposal'),
    maxTokens: 500,
    temperature: 0.2,
    timeoutMs: 5_000,
    role: 'proposer',
    ordinal: 0,
  };
}

// ---- Gemini's 429 bodies (google.rpc.Status with its details) ------------------------------

const QUOTA_MESSAGE =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.';
const quotaFailure = (quotaId: string, quotaValue: string) => ({
  '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
  violations: [
    {
      quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
      quotaId,
      quotaDimensions: { location: 'global', model: 'gemini-2.5-pro' },
      quotaValue,
    },
  ],
});
const help = { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] };
const retryInfo = (delay: string) => ({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay });
const gemini429 = (message: string, details?: unknown[], headers: Record<string, string> = {}): Http => ({
  status: 429,
  headers,
  body: { error: { code: 429, message, status: 'RESOURCE_EXHAUSTED', ...(details ? { details } : {}) } },
});

beforeAll(() => exposeUndiciDispatcherToTestRealm());
afterEach(async () => server?.close());

describe('Gemini 429s: a rate limit is retried after its delay, only a spent quota halts', () => {
  it('a per-minute quota (QuotaFailure + RetryInfo) is a rate limit, retried after its retryDelay', async () => {
    const body = gemini429(`${QUOTA_MESSAGE}\n* Quota exceeded for metric: generate_content_free_tier_requests, limit: 5\nPlease retry in 33.6s.`, [
      quotaFailure('GenerateRequestsPerMinutePerProjectPerModel-FreeTier', '5'),
      help,
      retryInfo('33s'),
    ]);
    expect(await failedTry('gemini', body)).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retry_after_ms: 33_000 });
  });

  it('"Resource has been exhausted (e.g. check quota)." with no RetryInfo is a rate limit, and the retry-after header is honoured', async () => {
    expect(await failedTry('gemini', gemini429('Resource has been exhausted (e.g. check quota).', undefined, { 'retry-after': '7' }))).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      retry_after_ms: 7000,
    });
  });

  it('the same body with no delay at all is still a rate limit (the engine waits its own backoff)', async () => {
    expect(await failedTry('gemini', gemini429('Resource has been exhausted (e.g. check quota).'))).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retry_after_ms: null });
  });

  it('ErrorInfo RATE_LIMIT_EXCEEDED is a rate limit', async () => {
    const errorInfo = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE_LIMIT_EXCEEDED', domain: 'googleapis.com', metadata: { quota_limit: 'GenerateContentRequestsPerMinutePerProjectPerRegion' } };
    expect(await failedTry('gemini', gemini429('Quota exceeded for quota metric.', [errorInfo], { 'retry-after': '2' }))).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retry_after_ms: 2000 });
  });

  it.each([
    ['a daily quota (QuotaFailure …PerDay…), even with its hours-long RetryInfo', [quotaFailure('GenerateRequestsPerDayPerProjectPerModel-FreeTier', '20'), retryInfo('35640s')]],
    ['a tier with no quota for the model (quotaValue 0)', [quotaFailure('GenerateRequestsPerMinutePerProjectPerModel-FreeTier', '0'), retryInfo('37s')]],
    ['ErrorInfo RESOURCE_EXHAUSTED (an allocation, not a rate)', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RESOURCE_EXHAUSTED', domain: 'googleapis.com' }]],
    ['"exceeded your current quota … billing" with no delay', undefined],
  ])('%s is a spent quota: USAGE_LIMIT, never retried', async (_what, details) => {
    const r = await failedTry('gemini', gemini429(QUOTA_MESSAGE, details as unknown[] | undefined));
    expect(r).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, retry_after_ms: null });
    expect(r.message).toContain('gemini: HTTP 429 RESOURCE_EXHAUSTED: You exceeded your current quota');
  });
});

describe('xAI and Ollama', () => {
  it('xAI answers a bad key with HTTP 400 "Incorrect API key provided": AUTH (the role falls back), in its words, key redacted', async () => {
    const body = { code: 'Client specified an invalid argument', error: `Incorrect API key provided: ${KEY}. You can obtain an API key from https://console.x.ai.` };
    const r = await failedTry('xai', { status: 400, body });
    expect(r).toMatchObject({ code: 'AUTH', retryable: false, retry_after_ms: null });
    expect(r.message).toBe('xai: HTTP 400: Incorrect API key provided: [redacted]. You can obtain an API key from https://console.x.ai.');
  });

  it('an xAI 400 that is not about the key stays BAD_REQUEST', async () => {
    const r = await failedTry('xai', { status: 400, body: { code: 'Client specified an invalid argument', error: 'Model grok-9 does not support parameter reasoning_effort.' } });
    expect(r).toMatchObject({ code: 'BAD_REQUEST', retryable: false });
  });

  it("Ollama's 429 retry-after is honoured", async () => {
    const r = await failedTry('ollama', { status: 429, headers: { 'retry-after': '5' }, body: { error: 'too many requests, please retry later' } });
    expect(r).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retry_after_ms: 5000 });
  });
});
