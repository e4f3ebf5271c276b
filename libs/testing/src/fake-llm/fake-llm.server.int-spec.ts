import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { FakeLlmServer } from './fake-llm.server';
import { startFakeLlmServer } from './fake-llm.server';

let server: FakeLlmServer;
afterEach(async () => server?.close());

const reply = { proposal_id: 'P1', claim: 'c' };

describe('fake LLM server', () => {
  it('streams a forced tool call as Anthropic SSE that the real SDK assembles', async () => {
    server = await startFakeLlmServer({ script: { replies: [{ role: 'proposer', reply, usage: { input_tokens: 50, output_tokens: 20 } }] } });
    const client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'claude-fake-1',
      max_tokens: 100,
      system: 'You are the proposer in a team.',
      messages: [{ role: 'user', content: 'go' }],
      tools: [{ name: 'submit', input_schema: { type: 'object' } }],
      tool_choice: { type: 'tool', name: 'submit' },
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'tool_use', id: expect.any(String), name: 'submit', input: reply }]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.output_tokens).toBe(20);
    expect(server.requests[0]).toMatchObject({ wire: 'anthropic', role: 'proposer', status: 200, body: expect.objectContaining({ stream: true }) });
  });

  it('answers as the Messages API does: 400 to a structured-output schema it cannot enforce, and to a forced tool on a model that thinks by default', async () => {
    server = await startFakeLlmServer({ script: { replies: [{ role: '*', reply }] } });
    const client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const ask = (extra: Record<string, unknown>, model = 'claude-fake-1') =>
      client.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'go' }], ...extra } as never).then(
        (m) => m as Anthropic.Message,
        (e: unknown) => e as Error,
      );
    const open = { type: 'object', properties: { claim: { type: 'string' } } };
    const constrained = { type: 'object', properties: { claim: { type: 'string', minLength: 1 } }, additionalProperties: false };
    expect(await ask({ output_config: { format: { type: 'json_schema', schema: open } } })).toMatchObject({ status: 400, message: expect.stringContaining("'additionalProperties' must be explicitly set to false") });
    expect(await ask({ output_config: { format: { type: 'json_schema', schema: constrained } } })).toMatchObject({ status: 400, message: expect.stringContaining("keyword 'minLength' is not supported") });
    const forced = { tools: [{ name: 'submit', input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: 'submit' } };
    expect(await ask(forced, 'claude-sonnet-5-5')).toMatchObject({ status: 400, message: expect.stringContaining('not supported with thinking') });
    const closed = { ...open, additionalProperties: false };
    const ok = (await ask({ output_config: { format: { type: 'json_schema', schema: closed } } }, 'claude-sonnet-5-5')) as Anthropic.Message;
    expect(ok.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(JSON.parse((ok.content[1] as Anthropic.TextBlock).text)).toEqual(reply);
  });

  it('logs every request with auth redacted, and refuses requests without a key or to unknown paths', async () => {
    server = await startFakeLlmServer({ script: { replies: [{ role: '*', reply }] }, apiKey: 'right' });
    const post = (p: string, headers: Record<string, string>, body: unknown = {}) =>
      fetch(`${server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    expect((await post('/v1/chat/completions', { authorization: 'Bearer wrong' }, { messages: [] })).status).toBe(401);
    expect((await post('/v1beta/models/m:generateContent?key=right', {}, { contents: [{ parts: [{ text: 'hi' }] }] })).status).toBe(200);
    expect((await post('/v2/nothing', {})).status).toBe(404);
    expect(server.requests.map((r) => [r.wire, r.status])).toEqual([['openai', 401], ['gemini', 200], [null, 404]]);
    expect(server.requests[0].headers.authorization).toBe('<redacted>');
    expect(server.requests[1].query.key).toBe('<redacted>');
    expect(JSON.stringify(server.requests)).not.toContain('right');
  });

  it('refuses a strict json_schema that is not closed, as OpenAI does', async () => {
    server = await startFakeLlmServer({ script: { replies: [{ role: '*', reply }] } });
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'P', strict: true, schema: { type: 'object', properties: { a: { type: 'string' } } } } },
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("'additionalProperties' is required to be supplied and to be false");
    expect(server.usage()).toEqual([0]);
  });

  it('answers a tool_calls entry in each wire’s tool-call shape, and its guards read the tool results in the history', async () => {
    const calls = [{ name: 'read_file', arguments: { path: 'calc.py' } }];
    const seen = { role: 'engineer', reply: '', tool_calls: calls, expects: ['def add'] };
    server = await startFakeLlmServer({ script: { replies: [seen, seen, seen, seen] } });
    const post = async (p: string, body: unknown) => {
      const res = await fetch(`${server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'x-goog-api-key': 'k' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      return (await res.json()) as { choices: unknown[]; candidates: unknown[] } & Record<string, unknown>;
    };
    const system = 'You are the engineer.';
    const file = 'def add(a, b):\n    return a + b';

    const anthropic = await post('/v1/messages', {
      model: 'claude-fake-1',
      system,
      messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: file }] }],
    });
    expect(anthropic).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', id: expect.any(String), name: 'read_file', input: { path: 'calc.py' } }] });

    const openai = await post('/v1/chat/completions', {
      messages: [{ role: 'system', content: system }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: file }],
    });
    expect(openai.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { tool_calls: [{ id: expect.any(String), type: 'function', function: { name: 'read_file', arguments: '{"path":"calc.py"}' } }] } });

    const gemini = await post('/v1beta/models/m:generateContent', {
      systemInstruction: { parts: [{ text: system }] },
      contents: [{ role: 'model', parts: [{ functionCall: { name: 'read_file', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { content: file } } }] }],
    });
    expect(gemini.candidates[0]).toMatchObject({ finishReason: 'STOP', content: { parts: [{ functionCall: { name: 'read_file', args: { path: 'calc.py' } } }] } });

    const ollama = await post('/api/chat', {
      model: 'm',
      messages: [{ role: 'system', content: system }, { role: 'assistant', content: '', tool_calls: [{ function: { name: 'read_file', arguments: {} } }] }, { role: 'tool', tool_name: 'read_file', content: file }],
    });
    expect(ollama).toMatchObject({ done: true, message: { tool_calls: [{ function: { name: 'read_file', arguments: { path: 'calc.py' } } }] } });
    expect(server.requests.map((r) => [r.wire, r.role])).toEqual([['anthropic', 'engineer'], ['openai', 'engineer'], ['gemini', 'engineer'], ['ollama', 'engineer']]);
  });

  it('loads a replay cassette as its script', async () => {
    server = await startFakeLlmServer({ scriptPath: path.resolve(__dirname, '../../../../examples/dd-demo/cassette.yaml') });
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'system', content: 'You are the proposer' }, { role: 'user', content: 'Handles a series that ends at its trough' }] }),
    });
    const body = (await res.json()) as { message: { content: string } };
    expect(JSON.parse(body.message.content)).toMatchObject({ proposal_id: 'P1' });
  });
});
