import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { OperatorPolicy } from '@roundtable/contracts';
import { FAKE_CLI_BIN_DIR } from '@roundtable/testing';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { PROPOSAL, proposerRequest } from '../provider-request.fixture';
import { fakeCliKit } from './cli-test-kit.fixture';

/**
 * The attack on a worker's secrets: a CLI child cannot see them in its own environment (they
 * are stripped), so it reads its parent's, /proc/$PPID/environ and /proc/$PPID/mem. Run as the
 * policy's cli.run_as user it gets EACCES for both. (Against the provider-worker as a real
 * process, with its real DATABASE_URL and a marker key: test/e2e/providers-cli.)
 */
let kit: ReturnType<typeof fakeCliKit>;
afterEach(() => kit?.cleanup());

interface Probe {
  pid: number;
  uid: number;
  environ: string;
  mem: string;
}

// The suite runs as root (as the provider-worker does in its image): that is what gives a CLI another user.
describe('which user a CLI child runs as', () => {
  it('as root: the CLI runs as cli.run_as and cannot read this process\'s environment or memory', async () => {
    kit = fakeCliKit({ replies: [{ role: 'proposer', reply: PROPOSAL, probe_parent: true }] });
    const c = await createProvider('claude_cli', { type: 'cli', cli: 'claude' }, { env: kit.env }).run(proposerRequest());
    const probe = (c.parsed as { parent_probe: Probe }).parent_probe;
    expect(probe).toEqual({ pid: process.pid, uid: 65534, environ: 'EACCES', mem: 'EACCES' });
  });

  it('the same probe run as this process\'s own user does read it (so EACCES above is the uid, not a broken probe)', () => {
    kit = fakeCliKit({ replies: [{ role: 'proposer', reply: { answer: 'x' }, probe_parent: true }] });
    const out = spawnSync(path.join(FAKE_CLI_BIN_DIR, 'claude'), ['-p', 'role: proposer', '--output-format', 'json'], { env: kit.env, encoding: 'utf8' });
    const probe = (JSON.parse(out.stdout) as { structured_output: { parent_probe: Probe } }).structured_output.parent_probe;
    expect(probe.uid).toBe(0);
    expect(probe.environ).toContain(`PATH=`);
    expect(probe.mem).not.toBe('EACCES');
  });

  it('not root, and cli.allow_same_user false (the default): refused before anything runs, naming the policy line', async () => {
    kit = fakeCliKit({ replies: [{ role: 'proposer', reply: PROPOSAL }] });
    const provider = createProvider('claude_cli', { type: 'cli', cli: 'claude' }, { env: kit.env, processUid: 1000 });
    const err = (await provider.run(proposerRequest()).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'POLICY_REFUSED', retryable: false });
    expect(err.message).toMatch(/runs as uid 1000, not root.*\(cli\.allow_same_user: false\).*set cli\.allow_same_user: true/);
    expect(kit.log()).toEqual([]);
  });

  it('cli.home is the HOME of a CLI run as cli.run_as; without it, the call\'s scratch directory', async () => {
    kit = fakeCliKit({ replies: [{ role: 'proposer', reply: PROPOSAL }, { role: 'proposer', reply: PROPOSAL }] });
    const policy = OperatorPolicy.parse({ cli: { home: '/var/lib/roundtable-cli' } });
    const withHome = await createProvider('claude_cli', { type: 'cli', cli: 'claude' }, { env: kit.env, policy, processUid: 0 }).run(proposerRequest());
    expect(withHome.parsed).toEqual(PROPOSAL);
    const scratch = await createProvider('claude_cli', { type: 'cli', cli: 'claude' }, { env: kit.env, processUid: 0 }).run(proposerRequest());
    const [first, second] = kit.log();
    expect(first.home).toBe('/var/lib/roundtable-cli');
    expect(second.home).toBe(second.cwd);
    expect(scratch.parsed).toEqual(PROPOSAL);
  });
});
