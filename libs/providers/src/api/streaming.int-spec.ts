import { exposeUndiciDispatcherToTestRealm, startFakeLlmServer } from '@roundtable/testing';
import type { FakeLlmServer, FakeScriptInput } from '@roundtable/testing';
import type { Completion, Provider, ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';

/**
 * onDelta is a preview: an adapter that streams must return, streamed, the very Completion it
 * returns whole (text, parsed reply, usage, stop reason, model, request id) and fail the same
 * way (code, status, retry-after, words), with pieces that add up to the text. Each way gets a
 * fresh fake server, so the request ids (a per-server counter) line up.
 */

const KEY = 'stream-test-key-0123456789';
type Wire = 'anthropic' | 'openai' | 'gemini' | 'ollama';

const ADAPTERS: { wire: Wire; make: (server: FakeLlmServer) => Provider }[] = [
  { wire: 'anthropic', make: (s) => createProvider('claude', { type: 'anthropic', api_key_env: 'K', base_url: s.baseUrls.anthropic }, { env: { K: KEY } }) },
  { wire: 'openai', make: (s) => createProvider('xai', { type: 'openai_compat', api_key_env: 'K', base_url: s.baseUrls.openai }, { env: { K: KEY } }) },
  { wire: 'gemini', make: (s) => createProvider('gemini', { type: 'gemini', api_key_env: 'K', base_url: s.baseUrls.gemini }, { env: { K: KEY } }) },
  { wire: 'ollama', make: (s) => createProvider('local', { type: 'ollama', host: s.baseUrls.ollama }) },
];

const servers: FakeLlmServer[] = [];
beforeAll(() => exposeUndiciDispatcherToTestRealm());
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Everything but the wall clock and the SDK's raw object (a stream's has another shape). */
const comparable = (c: Completion) => ({ ...c, latencyMs: 0, raw: null });
const errorFacts = (e: unknown) => {
  const err = e as ProviderError;
  // Each way has its own server: its port is the one word that may differ.
  const message = err.message.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
  return { name: err.name, code: err.code, retryable: err.retryable, httpStatus: err.httpStatus, retryAfterS: err.retryAfterS, message };
};

type Outcome = { ok: true; completion: Completion; pieces: string[]; wire: FakeLlmServer['requests'] } | { ok: false; error: ReturnType<typeof errorFacts>; pieces: string[] };

async function once(adapter: (typeof ADAPTERS)[number], script: FakeScriptInput, streamed: boolean, timeoutMs = 5_000): Promise<Outcome> {
  const server = await startFakeLlmServer({ script, apiKey: KEY, streamDelayMs: streamed ? 2 : 0 });
  servers.push(server);
  const pieces: string[] = [];
  const request = proposerRequest({ timeoutMs, ...(streamed ? { onDelta: (t: string) => pieces.push(t) } : {}) });
  try {
    const completion = await adapter.make(server).run(request);
    return { ok: true, completion, pieces, wire: server.requests };
  } catch (e) {
    return { ok: false, error: errorFacts(e), pieces };
  }
}

describe.each(ADAPTERS)('the $wire adapter streamed (onDelta given)', (adapter) => {
  it('returns the Completion it returns whole, and the pieces add up to its text', async () => {
    const script = { replies: [{ role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 700, output_tokens: 150, cached_input_tokens: adapter.wire === 'ollama' ? 0 : 64 } }] };
    const whole = await once(adapter, script, false);
    const streamed = await once(adapter, script, true);
    if (!whole.ok || !streamed.ok) throw new Error(`a call failed: ${JSON.stringify([whole, streamed])}`);
    expect(comparable(streamed.completion)).toEqual(comparable(whole.completion));
    expect(streamed.completion.parsed).toEqual(PROPOSAL);
    expect(streamed.pieces.length).toBeGreaterThan(5);
    expect(streamed.pieces.join('')).toBe(streamed.completion.text);
    // Only the streamed request asked for a stream; the whole one is as it always was.
    expect(whole.pieces).toEqual([]);
    expect(JSON.stringify(whole.wire[0].body)).not.toContain('"stream":true');
  });

  it('keeps a cancelled reply (its stop reason) and a malformed one (parsed null) as the whole reply has them', async () => {
    for (const fault of ['cancelled', 'malformed_json'] as const) {
      const script = { replies: [{ role: 'proposer', reply: PROPOSAL, fault }] };
      const whole = await once(adapter, script, false);
      const streamed = await once(adapter, script, true);
      if (!whole.ok || !streamed.ok) throw new Error(`a call failed: ${JSON.stringify([whole, streamed])}`);
      expect({ fault, c: comparable(streamed.completion) }).toEqual({ fault, c: comparable(whole.completion) });
    }
  });

  it.each([
    { fault: 429 as const, retry_after_s: 3 },
    { fault: 500 as const },
    { fault: 404 as const },
    { fault: 'usage_limit' as const },
  ])('fails on $fault exactly as the whole call does, before any piece', async (entry) => {
    const script = { replies: [{ role: 'proposer', ...entry }] };
    const whole = await once(adapter, script, false);
    const streamed = await once(adapter, script, true);
    expect(whole.ok).toBe(false);
    expect(streamed).toEqual({ ...whole, pieces: [] });
  });

  it('times out on a hang as the whole call does', async () => {
    const script = { replies: [{ role: 'proposer', fault: 'hang' as const }] };
    const whole = await once(adapter, script, false, 300);
    const streamed = await once(adapter, script, true, 300);
    expect(whole).toMatchObject({ ok: false, error: { code: 'TIMEOUT', retryable: true } });
    expect(streamed).toEqual(whole);
  });
});

describe('the anthropic adapter streamed, with a model that thinks by default', () => {
  it('passes on the reply text, not the thinking, and returns the whole call\'s Completion', async () => {
    const anthropic = ADAPTERS[0];
    const script = { replies: [{ role: 'proposer', reply: PROPOSAL }] };
    const run = async (streamed: boolean) => {
      const server = await startFakeLlmServer({ script, apiKey: KEY });
      servers.push(server);
      const pieces: string[] = [];
      const c = await anthropic.make(server).run(proposerRequest({ model: 'claude-sonnet-5-5', ...(streamed ? { onDelta: (t: string) => pieces.push(t) } : {}) }));
      return { c, pieces };
    };
    const whole = await run(false);
    const streamed = await run(true);
    expect(comparable(streamed.c)).toEqual(comparable(whole.c));
    expect(streamed.pieces.join('')).toBe(whole.c.text);
    expect(streamed.pieces.join('')).not.toContain('The reply must match the schema.');
  });
});
