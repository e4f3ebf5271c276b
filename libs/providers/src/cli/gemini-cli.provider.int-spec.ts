import type { FakeScriptInput } from '@roundtable/testing';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { fakeCliKit } from './cli-test-kit.fixture';

let kit: ReturnType<typeof fakeCliKit>;
const gemini = (script: FakeScriptInput, extraEnv: NodeJS.ProcessEnv = {}) => {
  kit = fakeCliKit(script);
  return createProvider('gemini_cli', { type: 'cli', cli: 'gemini' }, { env: { ...kit.env, ...extraEnv } });
};
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);
afterEach(() => kit?.cleanup());

describe('gemini CLI adapter against the fake `gemini` on PATH', () => {
  it('runs gemini -p with JSON output, the schema in the prompt and the role prompt as GEMINI_SYSTEM_MD', async () => {
    const provider = gemini(
      { replies: [{ role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 800, output_tokens: 200, cached_input_tokens: 300 } }] },
      { GEMINI_API_KEY: 'AIza-kept', ANTHROPIC_API_KEY: 'sk-dropped' },
    );
    const req = proposerRequest({ model: 'gemini-2.5-pro', timeoutMs: 20_000 });
    const c = await provider.run(req);
    expect(c.parsed).toEqual(PROPOSAL);
    expect(c.usage).toEqual({ inputTokens: 800, outputTokens: 200, cachedInputTokens: 300 });
    // with an API key the gemini CLI bills the API, and says so
    expect(c).toMatchObject({ provider: 'gemini_cli', model: 'gemini-2.5-pro', billing: 'api', reportedCostUsd: null });
    const [call] = kit.log();
    expect(c.argv).toEqual(['gemini', ...call.argv]);
    expect(call.argv).toEqual(['-p', expect.stringContaining(req.messages[1].content), '--output-format', 'json', '-m', 'gemini-2.5-pro']);
    expect(call.argv[1]).toContain('It must validate against this JSON schema');
    expect(call.systemMd).toBe(req.messages[0].content);
    expect(call).toMatchObject({ stdin: '/dev/null', credentialVars: ['GEMINI_API_KEY'], role: 'proposer' });
  });

  it('records subscription billing without a key, and an empty reply as parsed null', async () => {
    const provider = gemini({ replies: [{ role: 'proposer', reply: PROPOSAL, fault: 'empty' }] });
    expect(await provider.run(proposerRequest())).toMatchObject({ parsed: null, text: '', billing: 'subscription' });
  });

  it('maps the CLI error object: a daily quota is a usage limit', async () => {
    const provider = gemini({ replies: [{ role: 'proposer', fault: 'usage_limit' }, { role: 'proposer', fault: 404 }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, message: expect.stringContaining('Quota exceeded') });
    expect(await failure(provider.run(proposerRequest({ model: 'gemini-nope' })))).toMatchObject({ code: 'NOT_FOUND', retryable: false });
  });
});
