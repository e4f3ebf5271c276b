import { existsSync } from 'node:fs';
import path from 'node:path';
import { OperatorPolicy } from '@roundtable/contracts';
import { FAKE_CLI_BIN_DIR } from '@roundtable/testing';
import type { FakeScriptInput } from '@roundtable/testing';
import { plainJsonSchema } from '../json/structured-schema';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { fakeCliKit } from './cli-test-kit.fixture';

let kit: ReturnType<typeof fakeCliKit>;
/** `binary`: where the operator's policy says the claude CLI is (cli.binaries); a project never says. */
const claude = (script: FakeScriptInput, extraEnv: NodeJS.ProcessEnv = {}, binary?: string) => {
  kit = fakeCliKit(script);
  const policy = OperatorPolicy.parse({ cli: { binaries: binary ? { claude: binary } : {} } });
  return createProvider('claude_cli', { type: 'cli', cli: 'claude' }, { env: { ...kit.env, ...extraEnv }, policy });
};
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);
afterEach(() => kit?.cleanup());

describe('claude CLI adapter against the fake `claude` on PATH', () => {
  it('runs the documented answer-mode argv with stdin closed, and reads the envelope', async () => {
    const provider = claude(
      { replies: [{ role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 15000, output_tokens: 400, cached_input_tokens: 14000 }, cost_usd: 0.0421 }] },
      { ANTHROPIC_API_KEY: 'sk-ant-would-switch-billing', OPENAI_API_KEY: 'sk-other' },
    );
    const req = proposerRequest({ model: 'claude-sonnet-4-5', timeoutMs: 20_000 });
    const c = await provider.run(req);
    expect(c.parsed).toEqual(PROPOSAL);
    expect(c.usage).toEqual({ inputTokens: 15000, outputTokens: 400, cachedInputTokens: 14000 });
    expect(c).toMatchObject({ provider: 'claude_cli', model: 'claude-sonnet-4-5', reportedCostUsd: 0.0421, billing: 'subscription', stopReason: 'end_turn', requestId: 'fake-claude-session-1' });

    const [call] = kit.log();
    expect(c.argv).toEqual(['claude', ...call.argv]);
    expect(call.argv).toEqual([
      '-p', req.messages[1].content,
      '--output-format', 'json',
      '--json-schema', JSON.stringify(plainJsonSchema(req.jsonSchema)),
      '--tools', '',
      '--max-turns', '1',
      '--no-session-persistence',
      '--system-prompt', req.messages[0].content,
      '--model', 'claude-sonnet-4-5',
    ]);
    expect(call).toMatchObject({ stdin: '/dev/null', role: 'proposer', entry: 0 });
    // API keys would make claude bill the API instead of the subscription: the child never sees them
    expect(call.credentialVars).toEqual([]);
    expect(path.basename(call.cwd)).toMatch(/^roundtable-claude-/);
    expect(existsSync(call.cwd)).toBe(false);
  });

  it('returns empty, cancelled (max turns) and malformed replies as Completions with parsed null', async () => {
    const provider = claude({
      replies: [
        { role: 'proposer', reply: PROPOSAL, fault: 'empty' },
        { role: 'proposer', reply: PROPOSAL, fault: 'cancelled' },
        { role: 'proposer', reply: PROPOSAL, fault: 'malformed_json' },
        { role: 'proposer', fault: 'malformed_body' },
      ],
    });
    const empty = await provider.run(proposerRequest());
    expect(empty).toMatchObject({ parsed: null, text: '', stopReason: 'end_turn' });
    const cancelled = await provider.run(proposerRequest());
    expect(cancelled).toMatchObject({ parsed: null, text: '', stopReason: 'error_max_turns' });
    const broken = await provider.run(proposerRequest());
    expect(broken.parsed).toBeNull();
    expect(broken.text).toMatch(/^\{"proposal_id":"P1"/);
    const noEnvelope = await provider.run(proposerRequest());
    expect(noEnvelope).toMatchObject({ parsed: null, text: expect.stringContaining('something went wrong') });
  });

  it('maps the CLI failures in its own words: usage limit, login, 429, 5xx', async () => {
    const provider = claude({
      replies: [
        { role: 'proposer', fault: 'usage_limit' },
        { role: 'proposer', fault: 401 },
        { role: 'proposer', fault: 429 },
        { role: 'proposer', fault: 500 },
      ],
    });
    const limit = await failure(provider.run(proposerRequest()));
    expect(limit).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, message: "claude_cli (claude CLI, exit 1): You've hit your limit · resets 5pm (UTC)" });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'AUTH', retryable: false });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429 });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'SERVER_ERROR', retryable: true, httpStatus: 500 });
  });

  it('kills a hanging CLI at the timeout', async () => {
    const provider = claude({ replies: [{ role: 'proposer', fault: 'hang' }] });
    const started = Date.now();
    expect(await failure(provider.run(proposerRequest({ timeoutMs: 1_500 })))).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('flattens a repair call (user, assistant, user) into one prompt that shows the earlier reply', async () => {
    const provider = claude({ replies: [{ role: 'proposer', reply: PROPOSAL }] });
    const req = proposerRequest();
    await provider.run({
      ...req,
      messages: [...req.messages, { role: 'assistant', content: '{"proposal_id": ' }, { role: 'user', content: 'That was not valid JSON: fix it.' }],
    });
    const prompt = kit.log()[0].argv[1];
    expect(prompt).toBe(`${req.messages[1].content}\n\n--- Your previous reply ---\n{"proposal_id": \n\n--- Follow-up ---\nThat was not valid JSON: fix it.`);
  });

  it('uses the binary from the operator policy, then ROUNDTABLE_CLAUDE_BIN, and names a missing one', async () => {
    const bin = path.join(FAKE_CLI_BIN_DIR, 'claude');
    const byConfig = claude({ replies: [{ role: 'proposer', reply: PROPOSAL }] }, { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` }, bin);
    expect((await byConfig.run(proposerRequest())).argv?.[0]).toBe(bin);
    kit.cleanup();
    const byEnv = claude({ replies: [{ role: 'proposer', reply: PROPOSAL }] }, { ROUNDTABLE_CLAUDE_BIN: bin });
    expect((await byEnv.run(proposerRequest())).argv?.[0]).toBe(bin);
    kit.cleanup();
    const missing = claude({ replies: [] }, {}, '/nonexistent/claude');
    expect(await failure(missing.run(proposerRequest()))).toMatchObject({ code: 'CLI_FAILED', retryable: false, message: expect.stringContaining('"/nonexistent/claude" was not found') });
  });
});
