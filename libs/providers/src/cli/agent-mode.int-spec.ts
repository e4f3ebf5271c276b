import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { agentModeReportJsonSchema } from '@roundtable/contracts';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { proposerRequest } from '../provider-request.fixture';
import { fakeCliKit } from './cli-test-kit.fixture';

/**
 * Agent mode (issue 4, seed addendum 2): with `workdir` set, each CLI runs inside that
 * directory with its own editing tools on; the fakes on PATH apply the script's `edits` there
 * only when the agent-mode flags are on the command line.
 */
const REPORT = { proposal_id: 'P1', test_command: 'python -m pytest -q', notes: 'adds mul', assumptions: [], known_gaps: [] };

let kit: ReturnType<typeof fakeCliKit>;
let workdir: string;
beforeEach(() => {
  workdir = mkdtempSync(path.join(tmpdir(), 'rt-agent-worktree-'));
  // The CLI runs as the policy's cli.run_as user, not as this (root) process: the provider-worker
  // grants it the run's worktree before the call (agent-mode-engineer); this test opens its own.
  chmodSync(workdir, 0o777);
});
afterEach(() => {
  kit?.cleanup();
  rmSync(workdir, { recursive: true, force: true });
});

const engineerRequest = (over: Record<string, unknown> = {}) =>
  proposerRequest({
    messages: [
      { role: 'system', content: 'You are the engineer in a team of specialist agents.' },
      { role: 'user', content: 'Implement P1 in the workspace.' },
    ],
    role: 'engineer',
    schemaName: 'AgentModeReport',
    jsonSchema: agentModeReportJsonSchema(),
    ...over,
  });

const AGENT_FLAGS: Record<'claude' | 'codex' | 'grok', (dir: string) => string[]> = {
  claude: (dir) => ['--permission-mode', 'acceptEdits', '--add-dir', dir, '--tools', 'Read,Edit,Write,Glob,Grep', '--append-system-prompt'],
  codex: (dir) => ['-C', dir, '-s', 'workspace-write'],
  grok: (dir) => ['--cwd', dir, '--always-approve'],
};

describe.each(['claude', 'codex', 'grok'] as const)('%s CLI in agent mode', (cli) => {
  it('runs inside the worktree with its tools on, and its edits land there', async () => {
    kit = fakeCliKit({ replies: [{ role: 'engineer', reply: REPORT, edits: { 'calc.py': 'def mul(a, b):\n    return a * b\n' } }] });
    const provider = createProvider(`${cli}_cli`, { type: 'cli', cli }, { env: kit.env });
    const c = await provider.run(engineerRequest({ workdir }));
    expect(c.parsed).toMatchObject(REPORT);
    const [call] = kit.log();
    expect(call.cwd).toBe(workdir);
    expect(call.argv).toEqual(expect.arrayContaining(AGENT_FLAGS[cli](workdir)));
    expect(readFileSync(path.join(workdir, 'calc.py'), 'utf8')).toContain('return a * b');
  });

  it('in answer mode runs in a scratch directory with tools off, and edits nothing', async () => {
    kit = fakeCliKit({ replies: [{ role: 'engineer', reply: REPORT, edits: { 'calc.py': 'x = 1\n' } }] });
    const provider = createProvider(`${cli}_cli`, { type: 'cli', cli }, { env: kit.env });
    await provider.run(engineerRequest());
    const [call] = kit.log();
    expect(call.cwd).not.toBe(workdir);
    expect(call.argv).not.toEqual(expect.arrayContaining(AGENT_FLAGS[cli](workdir).slice(0, 2)));
    expect(existsSync(path.join(workdir, 'calc.py'))).toBe(false);
  });
});

describe('gemini CLI', () => {
  it('refuses agent mode with a message naming the CLIs that have it', async () => {
    kit = fakeCliKit({ replies: [{ role: 'engineer', reply: REPORT }] });
    const provider = createProvider('gem_cli', { type: 'cli', cli: 'gemini' }, { env: kit.env });
    const err = await provider.run(engineerRequest({ workdir })).then(
      () => null,
      (e: unknown) => e as ProviderError,
    );
    expect(err).toBeInstanceOf(ProviderError);
    expect(err?.message).toMatch(/no agent mode here; use claude, codex or grok/);
    expect(kit.log()).toEqual([]);
  });
});
