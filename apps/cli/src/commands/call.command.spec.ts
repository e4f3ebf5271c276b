import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fakeCliEnv, startFakeLlmServer, type FakeLlmServer, type FakeScriptInput } from '@roundtable/testing';
import { runCli } from '../cli';
import { captureIo } from '../fake-api.fixture';

const KEY = 'sk-ant-live-0123456789';
const PRICING = path.resolve(__dirname, '../../../../examples/pricing.yaml');

describe('roundtable call: one structured call from this machine (the real SDK against the fake wire server)', () => {
  let dir: string;
  let server: FakeLlmServer | undefined;

  const project = (providers: string) => {
    const file = path.join(dir, 'project.yaml');
    writeFileSync(file, `project: live\nproviders:\n${providers}\nagents:\n  proposer: { provider: anthropic, model: claude-haiku-4-5 }\n`);
    return file;
  };
  const withServer = async (script: FakeScriptInput) => {
    server = await startFakeLlmServer({ script, apiKey: KEY });
    return project(`  anthropic: { type: anthropic, api_key_env: LIVE_ANTHROPIC_KEY, base_url: "${server.baseUrls.anthropic}" }\n  xai: { type: openai_compat, api_key_env: XAI_API_KEY }`);
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-call-'));
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the parsed JSON, tokens, table cost and latency; the request asked for the {answer} schema as structured output', async () => {
    const file = await withServer({ replies: [{ role: '*', reply: { answer: 'pong' }, usage: { input_tokens: 40, output_tokens: 10, cached_input_tokens: 0 } }] });
    const out = captureIo({ cwd: dir, env: { LIVE_ANTHROPIC_KEY: KEY } });
    // XAI_API_KEY is unset: only the named provider's key matters.
    const code = await runCli(['call', 'anthropic', 'Say pong.', '--config', file, '--pricing', PRICING], out.io);
    expect({ code, stderr: out.stderr() }).toEqual({ code: 0, stderr: '' });
    const [first, second] = out.stdout().trimEnd().split('\n');
    expect(first).toBe('anthropic/claude-haiku-4-5: {"answer":"pong"}');
    // 40 in × $1/Mtok + 10 out × $5/Mtok
    expect(second).toMatch(/^tokens in=40 out=10 {2}\$0\.000090 \(pricing table\) {2}\d+ ms {2}request req_fake_1 {2}billing api$/);
    const body = server!.requests[0].body as { output_config: { format: { type: string; schema: unknown } }; model: string; messages: { content: string }[] };
    expect(body.output_config.format).toEqual({
      type: 'json_schema',
      schema: expect.objectContaining({ type: 'object', properties: { answer: expect.objectContaining({ type: 'string' }) }, additionalProperties: false }),
    });
    expect(body.model).toBe('claude-haiku-4-5');
    expect(JSON.stringify(body.messages)).toContain('Say pong.');
  });

  it('--json: one document with parsed, usage, cost and latency; --model overrides the role model', async () => {
    const file = await withServer({ replies: [{ role: '*', reply: { answer: 'pong' }, usage: { input_tokens: 40, output_tokens: 10, cached_input_tokens: 0 } }] });
    const out = captureIo({ cwd: dir, env: { LIVE_ANTHROPIC_KEY: KEY, PRICING_FILE: PRICING } });
    const code = await runCli(['call', 'anthropic', 'Say pong.', '--config', file, '--model', 'claude-opus-4-1', '--json'], out.io);
    expect(code).toBe(0);
    const doc = JSON.parse(out.stdout());
    expect(doc).toMatchObject({
      provider: 'anthropic',
      model: 'claude-opus-4-1',
      parsed: { answer: 'pong' },
      valid: true,
      usage: { input_tokens: 40, output_tokens: 10, cached_input_tokens: 0 },
      cost_usd: 0.00135,
      cost_source: 'table',
      billing: 'api',
    });
    expect(typeof doc.latency_ms).toBe('number');
  });

  it('skips with the reason and exit 0 when the key is absent; nothing is sent', async () => {
    const file = await withServer({ replies: [{ role: '*', reply: { answer: 'pong' } }] });
    const out = captureIo({ cwd: dir, env: {} });
    expect(await runCli(['call', 'anthropic', 'Say pong.', '--config', file], out.io)).toBe(0);
    expect(out.stdout()).toBe('skipped: anthropic needs the environment variable LIVE_ANTHROPIC_KEY, which is not set; nothing was called\n');
    expect(server!.requests).toEqual([]);

    // The built-in entries read the usual variables.
    const builtIn = captureIo({ cwd: dir, env: {} });
    expect(await runCli(['call', 'openai', 'hi', '--json'], builtIn.io)).toBe(0);
    expect(JSON.parse(builtIn.stdout())).toEqual({ provider: 'openai', model: 'gpt-5-mini', skipped: expect.stringContaining('OPENAI_API_KEY, which is not set') });
  });

  it('a provider error prints the provider words and HTTP status, exit 1', async () => {
    const file = await withServer({ replies: [{ role: '*', fault: 'usage_limit' }] });
    const out = captureIo({ cwd: dir, env: { LIVE_ANTHROPIC_KEY: KEY } });
    expect(await runCli(['call', 'anthropic', 'Say pong.', '--config', file], out.io)).toBe(1);
    expect(out.stderr()).toMatch(/^anthropic call failed \(USAGE_LIMIT\): anthropic: HTTP 400 invalid_request_error: You have reached your specified API usage limits/);
    expect(server!.requests).toHaveLength(1); // no retry behind the user's back
  });

  it('a CLI provider: skipped when its binary is not on PATH, answered by the fake claude when it is', async () => {
    const absent = captureIo({ cwd: dir, env: { PATH: dir } });
    expect(await runCli(['call', 'claude_cli', 'hi'], absent.io)).toBe(0);
    expect(absent.stdout()).toBe('skipped: claude_cli needs the claude CLI ("claude"), which is not on PATH; nothing was called\n');

    const script = path.join(dir, 'script.json');
    writeFileSync(script, JSON.stringify({ replies: [{ role: '*', reply: { answer: 'pong' }, cost_usd: 0.0123 }] }));
    const env = fakeCliEnv(script, path.join(dir, 'calls.jsonl'), { PATH: process.env.PATH, HOME: process.env.HOME });
    const out = captureIo({ cwd: dir, env });
    expect(await runCli(['call', 'claude_cli', 'Say pong.', '--model', 'sonnet', '--json'], out.io)).toBe(0);
    expect(JSON.parse(out.stdout())).toMatchObject({ provider: 'claude_cli', parsed: { answer: 'pong' }, cost_usd: 0.0123, cost_source: 'cli_estimate', billing: 'subscription' });
  });
});
