import { startFakeLlmServer } from '@roundtable/testing';
import type { FakeLlmServer, FakeScriptInput } from '@roundtable/testing';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { FILE, TOOL_SCRIPT, afterCalls, toolRequest } from './tool-turn.fixture';

let server: FakeLlmServer;

async function withScript(script: FakeScriptInput) {
  server = await startFakeLlmServer({ script });
  return createProvider('local', { type: 'ollama', host: server.baseUrls.ollama });
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);

afterEach(async () => server?.close());

describe('ollama adapter through ollama-js against the fake /api/chat', () => {
  it('sends the JSON schema as format and reads prompt_eval_count / eval_count', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 640, output_tokens: 120 } }] });
    const c = await provider.run(proposerRequest({ model: 'qwen3:30b' }));
    expect(c.parsed).toEqual(PROPOSAL);
    expect(c.usage).toEqual({ inputTokens: 640, outputTokens: 120, cachedInputTokens: 0 });
    expect(c).toMatchObject({ provider: 'local', model: 'qwen3:30b', stopReason: 'stop', requestId: null });
    expect(c.billing).toBeUndefined();

    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/api/chat', status: 200 });
    const body = req.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'qwen3:30b', stream: false, options: { temperature: 0.2, num_predict: 1000 } });
    expect(body.format).toMatchObject({ type: 'object', properties: { proposal_id: { type: 'string' } } });
    expect(body.format).not.toHaveProperty('$schema');
    expect(body.messages).toEqual([
      { role: 'system', content: expect.stringContaining('You are the proposer') },
      { role: 'user', content: expect.stringContaining('maximum drawdown') },
    ]);
  });

  it('maps an unknown model to NOT_FOUND and a 500 to SERVER_ERROR, in ollama words', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 404 }, { role: 'proposer', fault: 500 }] });
    expect(await failure(provider.run(proposerRequest({ model: 'nope:7b' })))).toMatchObject({
      code: 'NOT_FOUND',
      retryable: false,
      httpStatus: 404,
      message: 'local: HTTP 404: model "nope:7b" not found, try pulling it first',
    });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'SERVER_ERROR', retryable: true, httpStatus: 500 });
  });

  it('maps a 429 with retry-after, and returns malformed JSON as parsed null', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 429, retry_after_s: 2 }, { role: 'proposer', reply: PROPOSAL, fault: 'malformed_json' }] });
    // ollama-js drops response headers on errors: the adapter's fetch keeps the retry-after
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429, retryAfterS: 2 });
    expect((await provider.run(proposerRequest())).parsed).toBeNull();
  });

  it('times out on a hang, and reports an unreachable host as a retryable network error', async () => {
    const provider = await withScript({ replies: [{ role: 'proposer', fault: 'hang' }] });
    expect(await failure(provider.run(proposerRequest({ timeoutMs: 300 })))).toMatchObject({ code: 'TIMEOUT', retryable: true });
    const port = server.port;
    await server.close();
    const gone = createProvider('local', { type: 'ollama', host: `http://127.0.0.1:${port}` });
    expect(await failure(gone.run(proposerRequest()))).toMatchObject({ code: 'NETWORK', retryable: true, message: expect.stringContaining(`127.0.0.1:${port}`) });
  });

  it('runs a tool loop turn: tools and no format, calls given call_<index> ids, results sent as tool messages naming the tool', async () => {
    const provider = await withScript(TOOL_SCRIPT);
    const first = await provider.run(toolRequest());
    expect(first.toolCalls).toEqual([
      { id: 'call_0', name: 'read_file', arguments: { path: 'calc.py' } },
      { id: 'call_1', name: 'read_file', arguments: { path: 'test_calc.py' } },
    ]);
    expect(first).toMatchObject({ text: '', parsed: null, stopReason: 'stop' });
    const body = server.requests[0].body as Record<string, unknown>;
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'read_file', description: 'Read a file of the worktree.', parameters: expect.objectContaining({ type: 'object' }) } }]);
    expect(body.format).toBeUndefined();
    expect(body.stream).toBe(false);

    const second = await provider.run(toolRequest(afterCalls(first.toolCalls!)));
    expect(second).toMatchObject({ text: 'calc.py adds.', toolCalls: [] });
    expect((server.requests[1].body as { messages: unknown[] }).messages.slice(2)).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'read_file', arguments: { path: 'calc.py' } } }, { function: { name: 'read_file', arguments: { path: 'test_calc.py' } } }] },
      { role: 'tool', content: FILE, tool_name: 'read_file' },
      { role: 'tool', content: FILE, tool_name: 'read_file' },
    ]);
  });
});
