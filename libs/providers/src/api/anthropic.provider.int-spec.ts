import { startFakeLlmServer } from '@roundtable/testing';
import type { FakeLlmServer, FakeScriptInput } from '@roundtable/testing';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { EXPECTED_CALLS, FILE, TOOL_SCRIPT, afterCalls, toolRequest } from './tool-turn.fixture';

const KEY = 'sk-ant-test-0123456789';
let server: FakeLlmServer;

async function withScript(script: FakeScriptInput) {
  server = await startFakeLlmServer({ script, apiKey: KEY });
  return createProvider('anthropic', { type: 'anthropic', api_key_env: 'TEST_ANTHROPIC_KEY', base_url: server.baseUrls.anthropic }, { env: { TEST_ANTHROPIC_KEY: KEY } });
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);

afterEach(async () => server?.close());

describe('anthropic adapter through @anthropic-ai/sdk against the fake Messages API', () => {
  it('asks for the reply schema as structured output (output_config.format), and reads the JSON text, usage and request id', async () => {
    const provider = await withScript({
      replies: [{ role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 1200, output_tokens: 300, cached_input_tokens: 1000 } }],
    });
    const c = await provider.run(proposerRequest({ model: 'claude-fake-1' }));
    expect(c.parsed).toEqual(PROPOSAL);
    expect(JSON.parse(c.text)).toEqual(PROPOSAL);
    expect(c.usage).toEqual({ inputTokens: 1200, outputTokens: 300, cachedInputTokens: 1000 });
    expect(c).toMatchObject({ provider: 'anthropic', model: 'claude-fake-1', requestId: 'req_fake_1', stopReason: 'end_turn', billing: 'api', reportedCostUsd: null });

    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/messages', role: 'proposer', status: 200 });
    expect(req.headers.authorization ?? req.headers['x-api-key']).toBe('<redacted>');
    const body = req.body as Record<string, unknown> & { output_config: { format: { type: string; schema: Record<string, unknown> } } };
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
    expect(body.temperature).toBeUndefined();
    const schema = body.output_config.format.schema;
    expect(body.output_config.format.type).toBe('json_schema');
    // Closed objects, no $schema, and the constraints the API cannot enforce moved into descriptions
    // (the fake answers 400 to any other keyword, as the API does).
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false, required: expect.arrayContaining(['proposal_id', 'claim']) });
    expect(schema).not.toHaveProperty('$schema');
    expect(JSON.stringify(schema)).not.toMatch(/"(minLength|minimum|maximum)"/);
    expect(body.system).toContain('You are the proposer');
    expect(body).toMatchObject({ model: 'claude-fake-1', max_tokens: 1000, messages: [{ role: 'user', content: expect.stringContaining('maximum drawdown') }] });
    expect(body.stream).toBeUndefined();
  });

  it('works with a model that thinks by default and refuses a forced tool (Claude Sonnet 5.5): the thinking block is skipped', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', reply: PROPOSAL }] });
    const c = await provider.run(proposerRequest({ model: 'claude-sonnet-5-5' }));
    expect(server.requests[0].status).toBe(200);
    expect(c.parsed).toEqual(PROPOSAL);
    expect(JSON.parse(c.text)).toEqual(PROPOSAL);
    expect((c.raw as { content: { type: string }[] }).content.map((b) => b.type)).toEqual(['thinking', 'text']);
  });

  it('returns a reply that is not JSON as a Completion with parsed null', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', reply: PROPOSAL, fault: 'malformed_json' }] });
    const c = await provider.run(proposerRequest());
    expect(c.parsed).toBeNull();
    expect(c.text).toBe(JSON.stringify(PROPOSAL).slice(0, Math.floor(JSON.stringify(PROPOSAL).length / 2)));
    expect(c.stopReason).toBe('end_turn');
  });

  it('maps a 429 to a retryable RATE_LIMITED carrying retry-after, in the provider words', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 429, retry_after_s: 12 }] });
    const e = await failure(provider.run(proposerRequest()));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429, retryAfterS: 12 });
    expect(e!.message).toContain('would exceed the rate limit');
    expect(server.requests).toHaveLength(1); // maxRetries: 0 — the SDK did not retry behind our back
  });

  it('maps 500 to a retryable SERVER_ERROR after exactly one request', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 500 }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'SERVER_ERROR', retryable: true, httpStatus: 500, message: expect.stringContaining('Internal server error') });
    expect(server.requests).toHaveLength(1);
  });

  it('maps a 401 to AUTH, not retryable', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 401 }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'AUTH', retryable: false, httpStatus: 401, message: expect.stringContaining('invalid x-api-key') });
  });

  it('maps a usage-limit reply to USAGE_LIMIT with the provider words and status', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 'usage_limit' }] });
    const e = await failure(provider.run(proposerRequest()));
    expect(e).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, httpStatus: 400 });
    expect(e!.message).toContain('You have reached your specified API usage limits');
  });

  it('maps an unknown model (404) to NOT_FOUND', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 404 }] });
    expect(await failure(provider.run(proposerRequest({ model: 'claude-nope' })))).toMatchObject({ code: 'NOT_FOUND', retryable: false, httpStatus: 404, message: expect.stringContaining('claude-nope') });
  });

  it('gives up on a hanging server at the call timeout with a retryable TIMEOUT', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 'hang' }] });
    const started = Date.now();
    const e = await failure(provider.run(proposerRequest({ timeoutMs: 300 })));
    expect(e).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.requests).toHaveLength(1);
  });

  it('names the missing key variable, and never sends a request', async () => {
    server = await startFakeLlmServer({ script: { replies: [] } });
    const provider = createProvider('anthropic', { type: 'anthropic', api_key_env: 'NOT_SET_KEY', base_url: server.url }, { env: {} });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'AUTH', retryable: false, message: expect.stringContaining('NOT_SET_KEY') });
    expect(server.requests).toHaveLength(0);
  });

  it('fails a prompt guard with the fake server’s words', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', reply: PROPOSAL, forbids: ['maximum drawdown'] }] });
    const e = await failure(provider.run(proposerRequest()));
    expect(e).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(e!.message).toContain('the prompt contains forbidden "maximum drawdown"');
  });

  it('runs a tool loop turn: tools offered with tool_choice auto and no output_config, tool_use read back, tool results sent as one user turn of tool_result blocks', async () => {
    const provider = await withScript(TOOL_SCRIPT);
    const first = await provider.run(toolRequest());
    expect(first.toolCalls).toEqual(EXPECTED_CALLS);
    expect(first).toMatchObject({ text: '', parsed: null, stopReason: 'tool_use' });
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body.tools).toEqual([{ name: 'read_file', description: 'Read a file of the worktree.', input_schema: expect.objectContaining({ type: 'object' }) }]);
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.output_config).toBeUndefined();
    expect(body.stream).toBeUndefined();

    const second = await provider.run(toolRequest(afterCalls(first.toolCalls!)));
    expect(second).toMatchObject({ text: 'calc.py adds.', toolCalls: [], stopReason: 'end_turn' });
    const [call1, call2] = first.toolCalls!;
    expect((server.requests[1].body as { messages: unknown[] }).messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: call1.id, name: 'read_file', input: { path: 'calc.py' } }, { type: 'tool_use', id: call2.id, name: 'read_file', input: { path: 'test_calc.py' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call1.id, content: FILE }, { type: 'tool_result', tool_use_id: call2.id, content: FILE }] },
    ]);
  });

  it('sends a thinking turn back whole (thinking block and signature first), as Anthropic wants it beside the tool_use', async () => {
    const blocks = [
      { type: 'thinking', thinking: 'calc.py first', signature: 'sig-abc' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'calc.py' } },
    ];
    const provider = await withScript({
      replies: [
        { role: 'engineer', http: { status: 200, body: { id: 'msg_1', type: 'message', role: 'assistant', model: 'test-model', content: blocks, stop_reason: 'tool_use', usage: { input_tokens: 10, output_tokens: 5 } } } },
        { role: 'engineer', reply: 'calc.py adds.', expects: ['def add'] },
      ],
    });
    const first = await provider.run(toolRequest());
    expect(first.toolCalls).toEqual([{ id: 'toolu_1', name: 'read_file', arguments: { path: 'calc.py' } }]);
    expect(first.native).toEqual({ type: 'anthropic', content: blocks });
    await provider.run(toolRequest([{ ...afterCalls(first.toolCalls!)[0], native: first.native }, afterCalls(first.toolCalls!)[1]]));
    expect((server.requests[1].body as { messages: unknown[] }).messages[1]).toEqual({ role: 'assistant', content: blocks });
  });
});
