import path from 'node:path';
import type { FakeScriptInput } from '@roundtable/testing';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { fakeCliKit } from './cli-test-kit.fixture';

let kit: ReturnType<typeof fakeCliKit>;
const codex = (script: FakeScriptInput, extraEnv: NodeJS.ProcessEnv = {}) => {
  kit = fakeCliKit(script);
  return createProvider('codex_cli', { type: 'cli', cli: 'codex' }, { env: { ...kit.env, ...extraEnv } });
};
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);
afterEach(() => kit?.cleanup());

describe('codex CLI adapter against the fake `codex` on PATH', () => {
  it('runs codex exec read-only in a scratch dir with a strict schema file, judged by turn.completed', async () => {
    // strict mode: optional fields come back as null, and turn into absences
    const reply = { ...PROPOSAL, revision_of: null, responses_to_criticism: null };
    const provider = codex(
      { replies: [{ role: 'proposer', reply, usage: { input_tokens: 24000, output_tokens: 900, cached_input_tokens: 22000 } }] },
      { OPENAI_API_KEY: 'sk-would-switch-billing', CODEX_API_KEY: 'sk-also' },
    );
    const req = proposerRequest({ model: 'gpt-5-codex', effort: 'high', timeoutMs: 20_000 });
    const c = await provider.run(req);
    expect(c.parsed).toEqual({ ...PROPOSAL, revision_of: null });
    expect(c.usage).toEqual({ inputTokens: 24000, outputTokens: 900, cachedInputTokens: 22000 });
    expect(c).toMatchObject({ provider: 'codex_cli', reportedCostUsd: null, billing: 'subscription', stopReason: 'turn.completed', requestId: 'fake-thread-1' });

    const [call] = kit.log();
    expect(c.argv).toEqual(['codex', ...call.argv]);
    const dir = call.cwd;
    expect(call.argv).toEqual([
      'exec', '--json', '--ephemeral', '--skip-git-repo-check',
      '-C', dir,
      '-s', 'read-only',
      '--output-schema', path.join(dir, 'schema.json'),
      '-o', path.join(dir, 'last-message.txt'),
      '-m', 'gpt-5-codex',
      '-c', 'model_reasoning_effort=high',
      // no system-prompt override in codex: the role prompt leads the user turn
      `${req.messages[0].content}\n\n${req.messages[1].content}`,
    ]);
    expect(path.basename(dir)).toMatch(/^roundtable-codex-/);
    expect(call).toMatchObject({ stdin: '/dev/null', error: null });
    expect(call.credentialVars).toEqual([]);
  });

  it('is not thrown off by an error event followed by a reconnect', async () => {
    const provider = codex({ replies: [{ role: 'proposer', reply: PROPOSAL, fault: 'reconnect' }] });
    expect((await provider.run(proposerRequest())).parsed).toEqual(PROPOSAL);
  });

  it('returns an empty turn as a Completion with parsed null', async () => {
    const provider = codex({ replies: [{ role: 'proposer', reply: PROPOSAL, fault: 'empty' }, { role: 'proposer', reply: PROPOSAL, fault: 'malformed_json' }] });
    expect(await provider.run(proposerRequest())).toMatchObject({ parsed: null, text: '', stopReason: 'turn.completed' });
    expect((await provider.run(proposerRequest())).parsed).toBeNull();
  });

  it('ends on a turn that never completes, in codex words: usage limit, expired login, 429', async () => {
    const provider = codex({ replies: [{ role: 'proposer', fault: 'usage_limit' }, { role: 'proposer', fault: 401 }, { role: 'proposer', fault: 429 }] });
    const limit = await failure(provider.run(proposerRequest()));
    expect(limit).toMatchObject({ code: 'USAGE_LIMIT', retryable: false });
    expect(limit!.message).toContain("You've hit your usage limit");
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'AUTH', retryable: false, httpStatus: 401 });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'RATE_LIMITED', retryable: true, httpStatus: 429 });
  });

  it('kills a hanging codex at the timeout', async () => {
    const provider = codex({ replies: [{ role: 'proposer', fault: 'hang' }] });
    expect(await failure(provider.run(proposerRequest({ timeoutMs: 1_500 })))).toMatchObject({ code: 'TIMEOUT', retryable: true });
  });
});
