import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { ProviderError } from '../provider';
import { STDIN_PROMPT_BYTES } from './cli.provider';
import { fakeCliKit } from './cli-test-kit.fixture';

/**
 * A prompt over Linux's 128 KiB limit for one command-line argument (a fix round with many
 * files, files read before answering): claude and codex get it on stdin; a CLI that cannot
 * take it there fails with a message saying what to do, not a bare E2BIG.
 */
let kit: ReturnType<typeof fakeCliKit>;
afterEach(() => kit?.cleanup());

const END = 'END-OF-THE-LONG-PROMPT-7f3a';
const longRequest = () =>
  proposerRequest({
    messages: [
      { role: 'system', content: 'You are the proposer in a team of specialist agents.' },
      { role: 'user', content: `${'x = 1  # a line of a long file\n'.repeat(6000)}${END}` }, // ≈ 190 KiB
    ],
  });

describe.each(['claude', 'codex'] as const)('%s CLI with a prompt over 128 KiB', (cli) => {
  it('passes the prompt on stdin, and the CLI gets all of it', async () => {
    kit = fakeCliKit({ replies: [{ role: 'proposer', reply: PROPOSAL, expects: [END] }] });
    const provider = createProvider(`${cli}_cli`, { type: 'cli', cli }, { env: kit.env });
    const c = await provider.run(longRequest());
    expect(c.parsed).toMatchObject({ proposal_id: 'P1' });
    const [call] = kit.log();
    expect(call.error).toBeNull(); // the `expects` guard saw the prompt's last line
    expect(call.stdin).toMatch(/^(pipe|socket):/);
    expect(call.argv.join(' ').length).toBeLessThan(STDIN_PROMPT_BYTES); // the prompt is not on the command line
    if (cli === 'codex') expect(call.argv[call.argv.length - 1]).toBe('-');
  });

  it('keeps a short prompt on the command line with stdin closed', async () => {
    kit = fakeCliKit({ replies: [{ role: 'proposer', reply: PROPOSAL }] });
    const provider = createProvider(`${cli}_cli`, { type: 'cli', cli }, { env: kit.env });
    await provider.run(proposerRequest());
    expect(kit.log()[0].stdin).toBe('/dev/null');
  });
});

describe('grok CLI with a prompt over 128 KiB', () => {
  it('fails with a message that says what to do', async () => {
    kit = fakeCliKit({ replies: [{ role: 'proposer', reply: PROPOSAL }] });
    const provider = createProvider('grok_cli', { type: 'cli', cli: 'grok' }, { env: kit.env });
    const err = await provider.run(longRequest()).then(
      () => null,
      (e: unknown) => e as ProviderError,
    );
    expect(err).toBeInstanceOf(ProviderError);
    expect(err?.message).toMatch(/too large to pass to "grok" on its command line \(E2BIG\); claude and codex take long prompts on stdin/);
  });
});
