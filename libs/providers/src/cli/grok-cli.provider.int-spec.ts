import type { FakeScriptInput } from '@roundtable/testing';
import { plainJsonSchema } from '../json/structured-schema';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { fakeCliKit } from './cli-test-kit.fixture';

let kit: ReturnType<typeof fakeCliKit>;
const grok = (script: FakeScriptInput) => {
  kit = fakeCliKit(script);
  return createProvider('grok_cli', { type: 'cli', cli: 'grok' }, { env: { ...kit.env, XAI_API_KEY: 'xai-would-switch-billing' } });
};
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as ProviderError);
afterEach(() => kit?.cleanup());

describe('grok CLI adapter against the fake `grok` on PATH', () => {
  it('runs grok --single with more than one turn by default, and reads structuredOutput, usage and cost', async () => {
    const provider = grok({ replies: [{ role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 12000, output_tokens: 15600, cached_input_tokens: 2000 }, cost_usd: 0.27 }] });
    const req = proposerRequest({ model: 'grok-4', effort: 'low', timeoutMs: 20_000 });
    const c = await provider.run(req);
    expect(c.parsed).toEqual(PROPOSAL);
    expect(c.usage).toEqual({ inputTokens: 12000, outputTokens: 15600, cachedInputTokens: 2000 });
    expect(c).toMatchObject({ provider: 'grok_cli', model: 'grok-4', reportedCostUsd: 0.27, billing: 'subscription', stopReason: 'end_turn' });
    const [call] = kit.log();
    expect(c.argv).toEqual(['grok', ...call.argv]);
    expect(call.argv).toEqual([
      '--single', req.messages[1].content,
      '--output-format', 'json',
      '--json-schema', JSON.stringify(plainJsonSchema(req.jsonSchema)),
      '--max-turns', '3',
      '--disable-web-search',
      '--system-prompt-override', req.messages[0].content,
      '--model', 'grok-4',
      '--reasoning-effort', 'low',
    ]);
    expect(call).toMatchObject({ stdin: '/dev/null', credentialVars: [] });
  });

  it('passes max_turns through', async () => {
    const provider = grok({ replies: [{ role: 'proposer', reply: PROPOSAL }] });
    await provider.run(proposerRequest({ maxTurns: 5 }));
    const argv = kit.log()[0].argv;
    expect(argv[argv.indexOf('--max-turns') + 1]).toBe('5');
  });

  it('returns a cancelled reply with no text as a Completion with parsed null', async () => {
    const provider = grok({ replies: [{ role: 'proposer', reply: PROPOSAL, fault: 'cancelled', usage: { input_tokens: 30000, output_tokens: 17000 } }] });
    const c = await provider.run(proposerRequest());
    expect(c).toMatchObject({ parsed: null, text: '', stopReason: 'cancelled' });
    expect(c.usage.outputTokens).toBe(17000); // the tokens spent still count
  });

  it('maps a usage limit and a login failure, and times out a hang', async () => {
    const provider = grok({ replies: [{ role: 'proposer', fault: 'usage_limit' }, { role: 'proposer', fault: 401 }, { role: 'proposer', fault: 'hang' }] });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'USAGE_LIMIT', retryable: false, message: expect.stringContaining('Usage limit reached') });
    expect(await failure(provider.run(proposerRequest()))).toMatchObject({ code: 'AUTH', retryable: false });
    expect(await failure(provider.run(proposerRequest({ timeoutMs: 1_500 })))).toMatchObject({ code: 'TIMEOUT', retryable: true });
  });
});
