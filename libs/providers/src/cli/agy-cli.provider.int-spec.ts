import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_OPERATOR_POLICY, OperatorPolicy, providerPolicyIssues } from '@roundtable/contracts';
import type { FakeScriptInput } from '@roundtable/testing';
import { plainJsonSchema } from '../json/structured-schema';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { fakeCliKit } from './cli-test-kit.fixture';

let kit: ReturnType<typeof fakeCliKit>;
const agy = (script: FakeScriptInput, extraEnv: NodeJS.ProcessEnv = {}) => {
  kit = fakeCliKit(script);
  return createProvider('agy_cli', { type: 'cli', cli: 'agy' }, { env: { ...kit.env, ...extraEnv } });
};
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);
afterEach(() => kit?.cleanup());

/** An `agy` of the test's own (a shell script named in cli.binaries), for what the scripted fake does not print. */
function scriptedAgy(body: string) {
  kit = fakeCliKit({ replies: [] });
  const file = path.join(kit.dir, 'agy-script');
  writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return createProvider('agy_cli', { type: 'cli', cli: 'agy' }, { env: kit.env, policy: OperatorPolicy.parse({ cli: { binaries: { agy: file } } }) });
}

describe('agy CLI adapter against the fake `agy` on PATH', () => {
  it('runs agy -p with JSON output and a schema file, and reads structured_output, usage and the conversation id', async () => {
    const provider = agy(
      { replies: [{ role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 900, output_tokens: 120, cached_input_tokens: 300 } }] },
      { GEMINI_API_KEY: 'AIza-dropped' },
    );
    const req = proposerRequest({ model: 'gemini-3.5-flash', timeoutMs: 20_000 });
    const c = await provider.run(req);
    expect(c.parsed).toEqual(PROPOSAL);
    expect(JSON.parse(c.text)).toEqual(PROPOSAL);
    // The fake answers with structured_output only when --json-schema named a readable schema.
    expect(c.raw).toMatchObject({ structured_output: PROPOSAL, status: 'SUCCESS' });
    // Gemini-style usage: input_tokens already holds the 300 cache reads (total = input + output).
    expect(c.usage).toEqual({ inputTokens: 900, outputTokens: 120, cachedInputTokens: 300 });
    expect(c).toMatchObject({ provider: 'agy_cli', model: 'gemini-3.5-flash', billing: 'subscription', reportedCostUsd: null, stopReason: 'SUCCESS', requestId: 'fake-agy-conversation-1' });
    const [call] = kit.log();
    expect(c.argv).toEqual(['agy', ...call.argv]);
    expect(call.argv).toEqual([
      '--output-format', 'json',
      '--json-schema', expect.stringMatching(/\/roundtable-agy-[^/]+\/schema\.json$/),
      '--print-timeout', '20s',
      '--model', 'gemini-3.5-flash',
      '-p', `${req.messages[0].content}\n\n${req.messages[1].content}`,
    ]);
    // No tool approval in answer mode: agy denies its tools headless, which is what answer mode wants.
    expect(call.argv).not.toContain('--dangerously-skip-permissions');
    expect(call).toMatchObject({ stdin: '/dev/null', credentialVars: [], role: 'proposer' });
  });

  it('leaves the model to agy for model: default, and reads a plain reply whose raw newlines agy does not escape', async () => {
    const provider = agy({ replies: [{ role: 'proposer', reply: 'first line\nsecond line' }] });
    const c = await provider.run(proposerRequest({ model: 'default' }));
    expect(kit.log()[0].argv).not.toContain('--model');
    expect(c).toMatchObject({ text: 'first line\nsecond line\n', parsed: null, model: 'default' });
  });

  it('maps the envelope error: a spent quota is a usage limit, a sign-in wait an auth failure, a bad model not found', async () => {
    const provider = agy({ replies: [{ role: 'proposer', fault: 'usage_limit' }, { role: 'proposer', fault: 401 }, { role: 'proposer', fault: 404 }, { role: 'proposer', fault: 429 }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, message: expect.stringContaining('Individual quota reached') });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'AUTH', retryable: false, message: expect.stringContaining('agy_cli (agy CLI, exit 1): Authentication required') });
    expect(await failure(provider.run(proposerRequest({ model: 'gemini-nope' })))).toMatchObject({ code: 'NOT_FOUND', retryable: false, message: expect.stringContaining('"gemini-nope"') });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
  });

  it('keeps malformed output as a Completion with parsed null, for the audit log and the repair call', async () => {
    const provider = agy({ replies: [{ role: 'proposer', reply: PROPOSAL, fault: 'malformed_body' }] });
    const c = await provider.run(proposerRequest());
    expect(c).toMatchObject({ parsed: null, text: 'Error: something went wrong\n{"partial": ', raw: { exitCode: 0 } });
  });

  it('hands agy the role schema as --json-schema, a file it can read', async () => {
    const provider = scriptedAgy(`cat "$4" > "$(dirname "$0")/schema-seen.json"; echo '{"status":"SUCCESS","response":"{}","error":null}'`);
    const req = proposerRequest();
    await provider.run(req);
    expect(readFileSync(path.join(kit.dir, 'schema-seen.json'), 'utf8')).toBe(JSON.stringify(plainJsonSchema(req.jsonSchema)));
  });

  it('takes error: {} on a success for no error, and status ERROR without error words for a failure in its response', async () => {
    const ok = scriptedAgy(`echo '{"status":"SUCCESS","response":"{\\"answer\\":\\"x\\"}","error":{}}'`);
    expect(await ok.run(proposerRequest())).toMatchObject({ parsed: { answer: 'x' }, stopReason: 'SUCCESS' });
    kit.cleanup();
    const bad = scriptedAgy(`echo '{"status":"ERROR","response":"Individual quota reached. Resets in 3h38m47s."}'; exit 1`);
    expect(await failure(bad.run(proposerRequest()))).toMatchObject({ code: 'USAGE_LIMIT', message: expect.stringContaining('Resets in 3h38m47s') });
  });

  it('fails a reply of zero bytes with exit 0 (agy bug #76) as CLI_FAILED, not an empty answer', async () => {
    const provider = scriptedAgy('exit 0');
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'CLI_FAILED', retryable: false, message: expect.stringContaining('antigravity-cli#76') });
  });

  it('says which agy version the flags need when an old agy does not know them', async () => {
    const provider = scriptedAgy("echo 'flag provided but not defined: -output-format' >&2; exit 2");
    const err = await failure(provider.run(proposerRequest()));
    expect(err).toMatchObject({ code: 'CLI_FAILED', message: expect.stringContaining('need agy 1.1.8 or later') });
    expect(err?.message).toContain('exit 2');
  });

  it('refuses agent mode without starting agy', async () => {
    const provider = agy({ replies: [{ role: 'proposer', reply: PROPOSAL }] });
    const err = await failure(provider.run(proposerRequest({ workdir: kit.dir })));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err?.message).toMatch(/agy CLI has no agent mode here .*use claude, codex or grok/);
    expect(kit.log()).toEqual([]);
  });
});

describe('the operator policy and agy', () => {
  it('offers agy by default and refuses it when cli.allowed leaves it out, naming the policy line', () => {
    const entry = { type: 'cli', cli: 'agy' } as const;
    expect(providerPolicyIssues('google', entry, DEFAULT_OPERATOR_POLICY)).toEqual([]);
    const strict = OperatorPolicy.parse({ cli: { allowed: ['claude', 'gemini'] } });
    expect(providerPolicyIssues('google', entry, strict)).toEqual([
      { path: 'providers.google.cli', message: 'the agy CLI is not offered by the operator policy (ROUNDTABLE_POLICY); offered: [claude, gemini] (cli.allowed)' },
    ]);
  });
});
