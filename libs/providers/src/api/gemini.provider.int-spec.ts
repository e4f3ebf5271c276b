import { exposeUndiciDispatcherToTestRealm, startFakeLlmServer } from '@roundtable/testing';
import type { FakeLlmServer, FakeScriptInput } from '@roundtable/testing';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { FILE, TOOL_SCRIPT, afterCalls, toolRequest } from './tool-turn.fixture';

const KEY = 'AIza-test-key-0123456789';
let server: FakeLlmServer;

async function withScript(script: FakeScriptInput) {
  server = await startFakeLlmServer({ script, apiKey: KEY });
  return createProvider('gemini', { type: 'gemini', api_key_env: 'TEST_GEMINI_KEY', base_url: server.baseUrls.gemini }, { env: { TEST_GEMINI_KEY: KEY } });
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);
type Body = { generationConfig: Record<string, unknown>; systemInstruction: { parts: Array<{ text: string }> }; contents: Array<{ role: string; parts: Array<{ text: string }> }> };

beforeAll(() => exposeUndiciDispatcherToTestRealm());
afterEach(async () => server?.close());

describe('gemini adapter through @google/genai against the fake generateContent API', () => {
  it('asks for application/json with the response schema, and reads the reply and usageMetadata', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 700, output_tokens: 150, cached_input_tokens: 100 } }] });
    const c = await provider.run(proposerRequest({ model: 'gemini-2.5-pro' }));
    expect(c.parsed).toEqual(PROPOSAL);
    expect(c.usage).toEqual({ inputTokens: 700, outputTokens: 150, cachedInputTokens: 100 });
    expect(c).toMatchObject({ provider: 'gemini', model: 'gemini-2.5-pro', requestId: 'resp_fake_1', stopReason: 'STOP', billing: 'api' });

    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1beta/models/gemini-2.5-pro:generateContent', status: 200 });
    expect(req.headers['x-goog-api-key']).toBe('<redacted>');
    const body = req.body as Body;
    expect(body.generationConfig).toMatchObject({ responseMimeType: 'application/json', temperature: 0.2, maxOutputTokens: 1000 });
    expect(body.generationConfig.responseJsonSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['proposal_id']) });
    expect(body.generationConfig.responseJsonSchema).not.toHaveProperty('$schema');
    expect(body.systemInstruction.parts[0].text).toContain('You are the proposer');
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: expect.stringContaining('maximum drawdown') }] }]);
  });

  it("maps a 429 with Gemini's RetryInfo to RATE_LIMITED carrying the delay, and one without to USAGE_LIMIT", async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 429, retry_after_s: 4 }, { role: 'proposer', fault: 'usage_limit' }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429, retryAfterS: 4 });
    const quota = await failure(provider.run(proposerRequest()));
    expect(quota).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, httpStatus: 429 });
    expect(quota!.message).toBe('gemini: HTTP 429 RESOURCE_EXHAUSTED: You exceeded your current quota, please check your plan and billing details.');
    expect(server.requests).toHaveLength(2);
  });

  it("reads the retry-after header the SDK drops: a 429 saying quota with no RetryInfo is a rate limit, not a usage limit", async () => {
    const body = { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } };
    const provider = await withScript({ replies: [{ role: 'proposer', http: { status: 429, headers: { 'retry-after': '6' }, body } }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429, retryAfterS: 6 });
  });

  it('a daily quota (QuotaFailure …PerDay…) is a usage limit even with a RetryInfo', async () => {
    const details = [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', quotaValue: '20' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '35640s' },
    ];
    const body = { error: { code: 429, message: 'You exceeded your current quota, please check your plan and billing details.', status: 'RESOURCE_EXHAUSTED', details } };
    const provider = await withScript({ replies: [{ role: 'proposer', http: { status: 429, body } }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, retryAfterS: null });
  });

  it('maps 500, 401 and 404, one request each', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 500 }, { role: 'proposer', fault: 401 }, { role: 'proposer', fault: 404 }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'SERVER_ERROR', retryable: true, httpStatus: 500 });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'AUTH', retryable: false, httpStatus: 401 });
    expect(await failure(provider.run(proposerRequest({ model: 'gemini-nope' })))).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, message: expect.stringContaining('models/gemini-nope is not found') });
    expect(server.requests).toHaveLength(3);
  });

  it('returns malformed and empty replies as Completions with parsed null', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', reply: PROPOSAL, fault: 'malformed_json' }, { role: 'proposer', reply: PROPOSAL, fault: 'empty' }] });
    const broken = await provider.run(proposerRequest());
    expect(broken.parsed).toBeNull();
    expect(broken.text.length).toBeGreaterThan(10);
    const empty = await provider.run(proposerRequest());
    expect(empty).toMatchObject({ parsed: null, text: '' });
  });

  it('times out on a hang', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 'hang' }] });
    expect(await failure(provider.run(proposerRequest({ timeoutMs: 300 })))).toMatchObject({ code: 'TIMEOUT', retryable: true });
  });

  it('runs a tool loop turn: function declarations with mode AUTO and no response schema, calls given call_<index> ids, results sent as one user turn of functionResponse parts', async () => {
    const provider = await withScript(TOOL_SCRIPT);
    const first = await provider.run(toolRequest());
    expect(first.toolCalls).toEqual([
      { id: 'call_0', name: 'read_file', arguments: { path: 'calc.py' } },
      { id: 'call_1', name: 'read_file', arguments: { path: 'test_calc.py' } },
    ]);
    expect(first).toMatchObject({ text: '', parsed: null, stopReason: 'STOP' });
    const req = server.requests[0];
    expect(req.path).toBe('/v1beta/models/test-model:generateContent');
    const body = req.body as Body & Record<string, unknown>;
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'read_file', description: 'Read a file of the worktree.', parametersJsonSchema: expect.objectContaining({ type: 'object' }) }] }]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(body.generationConfig).not.toHaveProperty('responseMimeType');
    expect(body.generationConfig).not.toHaveProperty('responseJsonSchema');

    const second = await provider.run(toolRequest(afterCalls(first.toolCalls!)));
    expect(second).toMatchObject({ text: 'calc.py adds.', toolCalls: [] });
    expect((server.requests[1].body as Body).contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { id: 'call_0', name: 'read_file', args: { path: 'calc.py' } } }, { functionCall: { id: 'call_1', name: 'read_file', args: { path: 'test_calc.py' } } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_0', name: 'read_file', response: { content: FILE } } },
          { functionResponse: { id: 'call_1', name: 'read_file', response: { content: FILE } } },
        ],
      },
    ]);
  });

  it('sends a model turn back as Gemini returned it: each functionCall part keeps its thoughtSignature', async () => {
    const parts = [{ functionCall: { name: 'read_file', args: { path: 'calc.py' } }, thoughtSignature: 'c2lnbmF0dXJl' }];
    const provider = await withScript({
      replies: [
        { role: 'engineer', http: { status: 200, body: { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 } } } },
        { role: 'engineer', reply: 'calc.py adds.', expects: ['def add'] },
      ],
    });
    const first = await provider.run(toolRequest());
    expect(first.toolCalls).toEqual([{ id: 'call_0', name: 'read_file', arguments: { path: 'calc.py' } }]);
    expect(first.native).toEqual({ type: 'gemini', content: parts });
    const [assistant, result] = afterCalls(first.toolCalls!);
    await provider.run(toolRequest([{ ...assistant, native: first.native }, result]));
    expect((server.requests[1].body as Body).contents[1]).toEqual({ role: 'model', parts });
  });
});
