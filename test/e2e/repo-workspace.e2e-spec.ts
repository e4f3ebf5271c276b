import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gitEnv } from '@roundtable/sandbox';
import { buildStateBothWays } from './support/build-snapshot';
import { fakeCliEnv, Pipeline, projectConfigFrom, readFakeCliLog, startPipeline, submitRun, waitForTerminal, type FakeScriptEntryInput } from '@roundtable/testing';

jest.setTimeout(180_000);

const FIXTURES = path.resolve(__dirname, '../fixtures/repos');

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=fixture', '-c', 'user.email=fixture@localhost', '--no-optional-locks', ...args], { cwd, env: gitEnv(), encoding: 'utf8' });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Everything about the fixture a run could change by mistake: HEAD, branch, index, status, config, files. */
function snapshot(repo: string) {
  return {
    head: git(repo, 'rev-parse', 'HEAD').trim(),
    branch: git(repo, 'symbolic-ref', '--short', 'HEAD').trim(),
    status: git(repo, 'status', '--porcelain', '--untracked-files=all', '--ignored'),
    files: Object.fromEntries(['calc.py', 'test_calc.py', '.git/index', '.git/config', '.git/HEAD'].map((f) => [f, sha(path.join(repo, f))])),
  };
}

describe('a run against an existing git repository (separate processes, Docker sandbox)', () => {
  let pipeline: Pipeline;
  let tmp: string;
  let repo: string;
  let scriptPath: string;
  let logPath: string;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-repo-'));
    repo = path.join(tmp, 'calc');
    cpSync(path.join(FIXTURES, 'calc'), repo, { recursive: true });
    git(repo, 'init', '-q', '--initial-branch=main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'calc fixture');
    // The fake `claude` on the provider-worker's PATH plays the engineer in agent mode (second test).
    scriptPath = path.join(tmp, 'claude-script.json');
    logPath = path.join(tmp, 'claude-calls.jsonl');
    const { PATH, FAKE_LLM_SCRIPT, FAKE_LLM_LOG } = fakeCliEnv(scriptPath, logPath);
    pipeline = await startPipeline({ providerQueues: 'replay,claude_cli', env: { PATH: PATH!, FAKE_LLM_SCRIPT: FAKE_LLM_SCRIPT!, FAKE_LLM_LOG: FAKE_LLM_LOG! } });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('works on roundtable/<runId> in a worktree, tests in the sandbox, reports the diff, and leaves the repository as it was', async () => {
    const before = snapshot(repo);
    expect(before.status).toBe('');

    const res = await submitRun(pipeline.api, projectConfigFrom(path.join(FIXTURES, 'calc-project.yaml'), { repo }));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(pipeline, id, 150_000);
    expect(run).toMatchObject({ status: 'done', stage: 'DONE', verdict: 'ACCEPT', fix_round: 1, halt_reason: null });

    // Every reply was consumed: the guards on what each agent saw (file tree, diff of all rounds) held.
    const calls = await pipeline.sql<{ role: string; label: string; status: string; valid: boolean }>(
      `SELECT role, label, status, valid FROM agent_calls WHERE run_id = $1 ORDER BY seq`,
      [id],
    );
    // The critic, the engineer (I1) and the validator each asked to read files first, and answered under the same label.
    expect(calls.map((c) => `${c.role}:${c.label}`)).toEqual([
      'proposer:P1',
      'critic:C1',
      'critic:C1',
      'engineer:I1',
      'engineer:I1',
      'engineer:I1f1',
      'validator:R1',
      'validator:R1',
      'synthesizer:S1',
    ]);
    expect(calls.every((c) => c.status === 'completed' && c.valid === true)).toBe(true);

    // The snapshot the last step left is the state the tables give: records, commits with their diffs, file reads, tests.
    const both = await buildStateBothWays(pipeline, id);
    expect(both.snapshot.implementations.map((i) => i.diff?.commit)).toEqual([expect.any(String), expect.any(String)]);
    expect(both.snapshot).toEqual(both.tables);

    // Files requested and read: one `read` op per request, answered from the worktree (size-capped, path-checked).
    const reads = await pipeline.sql<{ status: string; result: { label: string; role: string; paths: string[]; files: { path: string; content: string | null; error: string | null }[] } }>(
      `SELECT status, result FROM workspace_ops WHERE run_id = $1 AND kind = 'read' ORDER BY created_at`,
      [id],
    );
    expect(reads.map((r) => [r.status, r.result.role, r.result.label, r.result.paths])).toEqual([
      ['done', 'critic', 'C1', ['calc.py', 'test_calc.py']],
      ['done', 'engineer', 'I1', ['calc.py']],
      ['done', 'validator', 'R1', ['test_mul.py', 'test_calc.py', 'nope.py']],
    ]);
    expect(reads[0].result.files[0]).toMatchObject({ path: 'calc.py', content: readFileSync(path.join(FIXTURES, 'calc', 'calc.py'), 'utf8'), error: null });
    expect(reads[2].result.files.map((f) => [f.path, f.error])).toEqual([
      ['test_mul.py', null],
      ['test_calc.py', null],
      ['nope.py', 'no such file in the workspace'],
    ]);
    const readEvents = await pipeline.sql<{ type: string; payload: { label: string } }>(
      `SELECT type, payload FROM run_events WHERE run_id = $1 AND type IN ('files_requested', 'files_read') ORDER BY sequence`,
      [id],
    );
    expect(readEvents.map((e) => `${e.type}:${e.payload.label}`)).toEqual([
      'files_requested:C1',
      'files_read:C1',
      'files_requested:I1',
      'files_read:I1',
      'files_requested:R1',
      'files_read:R1',
    ]);

    // The workspace was a worktree of the fixture at main's HEAD; the tree the agents saw is the repository's.
    const [prepare] = await pipeline.sql<{ result: Record<string, unknown> }>(`SELECT result FROM workspace_ops WHERE run_id = $1 AND kind = 'prepare'`, [id]);
    expect(prepare.result).toMatchObject({
      path: path.join(pipeline.workspaceRoot, id, 'workspace'),
      tree: ['calc.py', 'test_calc.py'],
      source: 'worktree',
      origin: repo,
      branch: `roundtable/${id}`,
      base_commit: before.head,
    });

    // The tests ran in the Docker sandbox: the fixture's own test and the new one.
    const tests = await pipeline.sql<{ label: string; exit_code: number; passed: number; failed: number; runner: string }>(
      `SELECT label, exit_code, passed, failed, runner FROM test_runs WHERE run_id = $1 ORDER BY label`,
      [id],
    );
    expect(tests).toEqual([
      { label: 'T1', exit_code: 1, passed: 1, failed: 1, runner: 'docker' },
      { label: 'T2', exit_code: 0, passed: 2, failed: 0, runner: 'docker' },
    ]);

    // The run branch holds one commit per round on top of main, and nothing the tests left behind.
    const branch = `roundtable/${id}`;
    expect(git(repo, 'log', '--format=%s', branch).trim().split('\n')).toEqual([
      'I1f1: mul multiplies: T1 showed it added its arguments',
      'I1: Adds mul() next to add() and a test file for it',
      'calc fixture',
    ]);
    expect(git(repo, 'ls-tree', '-r', '--name-only', branch).trim().split('\n')).toEqual(['calc.py', 'test_calc.py', 'test_mul.py']);
    expect(git(repo, 'show', `${branch}:calc.py`)).toContain('def mul(a: float, b: float) -> float:\n    return a * b\n');
    expect(git(repo, 'diff', '--name-only', `main..${branch}`).trim().split('\n')).toEqual(['calc.py', 'test_mul.py']);

    // Each round's cumulative diff is an artifact.
    const diffs = await pipeline.sql<{ path: string; content: string }>(`SELECT path, content FROM artifacts WHERE run_id = $1 AND kind = 'diff' ORDER BY path`, [id]);
    expect(diffs.map((d) => d.path)).toEqual(['diffs/I1.diff', 'diffs/I1f1.diff']);
    expect(diffs[1].content).toContain('+++ b/test_mul.py');
    expect(diffs[1].content).toContain('+    return a * b');

    // The report lists the diff per implementation and over all rounds.
    const report = await (await fetch(`${pipeline.api}/v1/runs/${id}/report`)).text();
    const commit = (rev: string) => git(repo, 'rev-parse', rev).trim().slice(0, 12);
    expect(report).toContain(`## Diff\nBranch ${branch} in a git worktree of ${repo} (checked out at ${String(prepare.result.path)}), from base ${before.head.slice(0, 12)}.`);
    expect(report).toContain(`- I1 → ${commit(`${branch}~1`)}: calc.py +4 −0, test_mul.py +6 −0`);
    expect(report).toContain(`- I1f1 → ${commit(branch)}: calc.py +1 −1`);
    expect(report).toContain('All rounds against the base: 2 files, +10 −0 (calc.py +4 −0, test_mul.py +6 −0).');
    expect(report).toContain(
      'Files read before answering:\n- C1 (critic): calc.py, test_calc.py\n- I1 (engineer): calc.py\n' +
        '- R1 (validator): test_mul.py, test_calc.py, nope.py (no such file in the workspace)\n',
    );

    // The fixture's own branch, index, config and files are exactly as before.
    expect(snapshot(repo)).toEqual(before);
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${prepare.result.path}\n`);
  });

  it('an engineer in agent mode edits the worktree itself (claude CLI, tools on); git add -A && git diff --cached is its implementation', async () => {
    const before = snapshot(repo);
    const calc = readFileSync(path.join(FIXTURES, 'calc', 'calc.py'), 'utf8');
    const report = (notes: string) => ({ proposal_id: 'P1', test_command: 'python -m pytest -q', notes, assumptions: ['Arguments are ints or floats.'], known_gaps: [] });
    const engineer: FakeScriptEntryInput[] = [
      {
        role: 'engineer',
        expects: ['git add -A && git diff --cached', 'test_calc.py'],
        forbids: ['"paths"'], // an agent reads with its own tools: no file requests offered
        edits: {
          'calc.py': `${calc}\n\ndef mul(a: float, b: float) -> float:\n    return a + b\n`,
          'test_mul.py': 'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n    assert mul(-4, 0) == 0\n',
          'scratch.md': 'plan: mul next to add\n',
        },
        reply: report('Adds mul() next to add() and a test file for it'),
      },
      {
        role: 'engineer',
        expects: ['test_mul'],
        edits: { 'calc.py': `${calc}\n\ndef mul(a: float, b: float) -> float:\n    return a * b\n`, 'scratch.md': null },
        reply: report('mul multiplies: T1 showed it added its arguments'),
      },
    ];
    writeFileSync(scriptPath, JSON.stringify({ replies: engineer }));
    rmSync(logPath, { force: true });

    const config = projectConfigFrom(path.join(FIXTURES, 'calc-project.yaml'), { repo }) as Record<string, unknown> & {
      providers: Record<string, unknown>;
      agents: Record<string, unknown>;
    };
    config.providers.claude_cli = { type: 'cli', cli: 'claude' };
    config.agents.engineer = { provider: 'claude_cli', model: 'default', mode: 'agent' };
    const res = await submitRun(pipeline.api, config);
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const run = await waitForTerminal(pipeline, id, 150_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT', fix_round: 1, halt_reason: null });

    const worktree = path.join(pipeline.workspaceRoot, id, 'workspace');
    const calls = await pipeline.sql<{ role: string; label: string; provider: string; argv: string[] | null; parsed: { files?: { path: string }[]; deleted?: string[] } }>(
      `SELECT role, label, provider, argv, parsed FROM agent_calls WHERE run_id = $1 AND role = 'engineer' ORDER BY seq`,
      [id],
    );
    expect(calls.map((c) => [c.label, c.provider])).toEqual([
      ['I1', 'claude_cli'],
      ['I1f1', 'claude_cli'],
    ]);
    // Tools on, edits accepted, confined to the worktree; the CLI ran inside it.
    expect(calls[0].argv).toEqual(expect.arrayContaining(['--permission-mode', 'acceptEdits', '--add-dir', worktree, '--tools', 'Read,Edit,Write,Glob,Grep']));
    expect(readFakeCliLog(logPath).map((l) => l.cwd)).toEqual([worktree, worktree]);
    // The implementation is what git saw change: I1 three files, I1f1 calc.py, and the scratch file it removed as `deleted`.
    expect(calls.map((c) => (c.parsed.files ?? []).map((f) => f.path))).toEqual([['calc.py', 'scratch.md', 'test_mul.py'], ['calc.py']]);
    expect(calls.map((c) => c.parsed.deleted ?? [])).toEqual([[], ['scratch.md']]);
    const agentDiffs = await pipeline.sql<{ path: string; content: string }>(
      `SELECT path, content FROM artifacts WHERE run_id = $1 AND path LIKE 'agent/%' ORDER BY path`,
      [id],
    );
    expect(agentDiffs.map((d) => d.path)).toEqual(['agent/I1.diff', 'agent/I1f1.diff']);
    expect(agentDiffs[0].content).toContain('+++ b/test_mul.py');
    expect(agentDiffs[1].content).toContain('-    return a + b\n+    return a * b');

    // Committed per round on the run branch, tested in the sandbox, reviewed with the diff (the validator's guards held).
    const branch = `roundtable/${id}`;
    expect(git(repo, 'ls-tree', '-r', '--name-only', branch).trim().split('\n')).toEqual(['calc.py', 'test_calc.py', 'test_mul.py']);
    expect(git(repo, 'log', '--format=%s', branch).trim().split('\n')).toEqual([
      'I1f1: mul multiplies: T1 showed it added its arguments',
      'I1: Adds mul() next to add() and a test file for it',
      'calc fixture',
    ]);
    const tests = await pipeline.sql<{ label: string; exit_code: number; runner: string }>(`SELECT label, exit_code, runner FROM test_runs WHERE run_id = $1 ORDER BY label`, [id]);
    expect(tests).toEqual([
      { label: 'T1', exit_code: 1, runner: 'docker' },
      { label: 'T2', exit_code: 0, runner: 'docker' },
    ]);
    expect(snapshot(repo)).toEqual(before);
  });
});
