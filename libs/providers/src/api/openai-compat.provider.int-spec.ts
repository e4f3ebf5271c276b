import { AGENT_SCHEMAS } from '@roundtable/contracts';
import { startFakeLlmServer, strictSchemaViolation } from '@roundtable/testing';
import type { FakeLlmServer, FakeLlmServerOptions, FakeScriptInput } from '@roundtable/testing';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { EXPECTED_CALLS, FILE, TOOL_SCRIPT, afterCalls, toolRequest } from './tool-turn.fixture';

const KEY = 'xai-test-key-0123456789';
let server: FakeLlmServer;

async function withScript(script: FakeScriptInput, opts: Partial<FakeLlmServerOptions> = {}) {
  server = await startFakeLlmServer({ script, apiKey: KEY, ...opts });
  // the xAI shape: the same adapter, another base URL
  return createProvider('xai', { type: 'openai_compat', api_key_env: 'TEST_XAI_KEY', base_url: server.baseUrls.openai }, { env: { TEST_XAI_KEY: KEY } });
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);
type Body = { response_format: { type: string; json_schema?: { name: string; strict: boolean; schema: Record<string, unknown> } }; messages: Array<{ role: string; content: string }> } & Record<string, unknown>;

afterEach(async () => server?.close());

describe('openai_compat adapter through the openai SDK against the fake chat completions API', () => {
  it('asks for json_schema strict with every object closed, and reads the reply, usage and request id', async () => {
    // strict mode makes the model send null for optional fields; the adapter turns them back into absences
    const reply = { ...PROPOSAL, revision_of: null, responses_to_criticism: null };
    const provider = await withScript({ replies: [{ role: 'proposer', reply, usage: { input_tokens: 900, output_tokens: 200, cached_input_tokens: 512 } }] });
    const c = await provider.run(proposerRequest({ model: 'grok-4' }));
    expect(c.parsed).toEqual({ ...PROPOSAL, revision_of: null });
    expect(AGENT_SCHEMAS.Proposal.parse(c.parsed).responses_to_criticism).toEqual([]);
    expect(c.usage).toEqual({ inputTokens: 900, outputTokens: 200, cachedInputTokens: 512 });
    expect(c).toMatchObject({ provider: 'xai', model: 'grok-4', requestId: 'req_fake_1', stopReason: 'stop', billing: 'api' });

    const [req] = server.requests;
    expect(req).toMatchObject({ path: '/v1/chat/completions', status: 200 });
    expect(req.headers.authorization).toBe('<redacted>');
    const body = req.body as Body;
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema).toMatchObject({ name: 'Proposal', strict: true });
    const schema = body.response_format.json_schema!.schema;
    expect(strictSchemaViolation(schema)).toBeNull();
    expect(schema).toMatchObject({ additionalProperties: false, properties: { responses_to_criticism: { type: ['array', 'null'] } } });
    expect(body).toMatchObject({ model: 'grok-4', temperature: 0.2, max_completion_tokens: 1000 });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('falls back to json_object with the schema in the system prompt when the model refuses strict mode', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', reply: PROPOSAL }] }, { rejectJsonSchema: true });
    const c = await provider.run(proposerRequest());
    expect(c.parsed).toEqual(PROPOSAL);
    expect(server.requests.map((r) => r.status)).toEqual([400, 200]);
    const second = server.requests[1].body as Body;
    expect(second.response_format).toEqual({ type: 'json_object' });
    const instruction = second.messages.find((m) => m.role === 'system' && m.content.includes('JSON schema'));
    expect(instruction?.content).toContain('"proposal_id"');
    expect(second.messages.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect((c.raw as { roundtable_downgrades: string[] }).roundtable_downgrades).toEqual(['json_object']);
    expect(server.usage()).toEqual([1]); // the refused request used up no scripted reply
  });

  it('maps a 429 to RATE_LIMITED with retry-after, and insufficient_quota (also a 429) to USAGE_LIMIT', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 429, retry_after_s: 3 }, { role: 'proposer', fault: 'usage_limit' }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429, retryAfterS: 3, message: expect.stringContaining('Rate limit reached') });
    const quota = await failure(provider.run(proposerRequest()));
    expect(quota).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, httpStatus: 429 });
    expect(quota!.message).toContain('You exceeded your current quota');
    expect(server.requests).toHaveLength(2);
  });

  it('maps 500 to SERVER_ERROR (one request), and a 401 to AUTH without the key in the message', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 500 }, { role: 'proposer', fault: 401 }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'SERVER_ERROR', retryable: true, httpStatus: 500 });
    expect(server.requests).toHaveLength(1);
    const auth = await failure(provider.run(proposerRequest()));
    expect(auth).toMatchObject({ code: 'AUTH', retryable: false, httpStatus: 401 });
    expect(auth!.message).toContain('Incorrect API key provided: [redacted]');
    expect(auth!.message).not.toContain(KEY);
  });

  it('maps xAI\'s HTTP 400 "Incorrect API key provided" to AUTH, in its words, without the key', async () => {
    const body = { code: 'Client specified an invalid argument', error: `Incorrect API key provided: ${KEY}. You can obtain an API key from https://console.x.ai.` };
    const provider = await withScript({ replies: [{ role: 'proposer', http: { status: 400, body } }] });
    const e = await failure(provider.run(proposerRequest()));
    expect(e).toMatchObject({ code: 'AUTH', retryable: false, httpStatus: 400, retryAfterS: null });
    expect(e!.message).toBe('xai: HTTP 400: Incorrect API key provided: [redacted]. You can obtain an API key from https://console.x.ai.');
  });

  it('returns malformed JSON as a Completion with parsed null, keeping the text', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', reply: PROPOSAL, fault: 'malformed_json' }] });
    const c = await provider.run(proposerRequest());
    expect(c.parsed).toBeNull();
    expect(c.text.startsWith('{"proposal_id":"P1"')).toBe(true);
  });

  it('times out on a hang, and calls a body that is not JSON a retryable provider error', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 'hang' }, { role: 'proposer', fault: 'malformed_body' }] });
    expect(await failure(provider.run(proposerRequest({ timeoutMs: 300 })))).toMatchObject({ code: 'TIMEOUT', retryable: true });
    const garbled = await failure(provider.run(proposerRequest()));
    expect(garbled).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true });
  });

  it('runs a tool loop turn: function tools with tool_choice auto and no response_format, arguments parsed, results sent as tool messages', async () => {
    const provider = await withScript(TOOL_SCRIPT);
    const first = await provider.run(toolRequest());
    expect(first.toolCalls).toEqual(EXPECTED_CALLS);
    expect(first).toMatchObject({ text: '', parsed: null, stopReason: 'tool_calls' });
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'read_file', description: 'Read a file of the worktree.', parameters: expect.objectContaining({ type: 'object' }) } }]);
    expect(body.tool_choice).toBe('auto');
    expect(body.response_format).toBeUndefined();
    expect(body.stream).toBeUndefined();

    const second = await provider.run(toolRequest(afterCalls(first.toolCalls!)));
    expect(second).toMatchObject({ text: 'calc.py adds.', toolCalls: [] });
    const [call1, call2] = first.toolCalls!;
    expect((server.requests[1].body as Body).messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: call1.id, type: 'function', function: { name: 'read_file', arguments: '{"path":"calc.py"}' } },
          { id: call2.id, type: 'function', function: { name: 'read_file', arguments: '{"path":"test_calc.py"}' } },
        ],
      },
      { role: 'tool', tool_call_id: call1.id, content: FILE },
      { role: 'tool', tool_call_id: call2.id, content: FILE },
    ]);
  });

  it('refuses a tool call whose arguments are not a JSON object, rather than running the tool with none', async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path": "calc.' } };
    const body = { id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }] };
    const provider = await withScript({ replies: [{ role: 'engineer', http: { status: 200, body } }] });
    expect(await failure(provider.run(toolRequest()))).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false, message: 'xai: tool call read_file has arguments that are not a JSON object' });
  });
});
