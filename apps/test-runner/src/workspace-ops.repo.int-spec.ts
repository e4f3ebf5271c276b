import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import { AUTONOMOUS_APPROVER, loadProjectConfig, readOperatorPolicy } from '@roundtable/contracts';
import {
  AgentCallEntity,
  ArtifactEntity,
  createDataSource,
  createTestDatabase,
  ImplementationEntity,
  ProjectEntity,
  ProposalEntity,
  RunEntity,
  TestDatabase,
  WorkspaceOpEntity,
} from '@roundtable/persistence';
import type { JobProducer } from '@roundtable/queues';
import { gitEnv } from '@roundtable/sandbox';
// The workflow's view of the run, as the orchestrator reads it (its SQL folder): a test reaching
// into another app, which production code never may (README.md, library boundaries).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { loadBuildRunState } from '../../orchestrator/src/workflows/build/build-run-state.sql';
import { SandboxRunners } from './sandbox-runners';
import { commitMessage, WorkspaceOpsService } from './workspace-ops.service';

/** prepare / apply / runTests on a real git repository: real Postgres, real git, real Docker. */
jest.setTimeout(180_000);

const REPO_ROOT = path.resolve(__dirname, '../../..');
const IMAGE = process.env.SANDBOX_IMAGE ?? 'roundtable/sandbox:latest';
const DEMO_DIR = path.join(REPO_ROOT, 'examples/dd-demo');
const demoConfig = () => loadProjectConfig(readFileSync(path.join(DEMO_DIR, 'project.yaml'), 'utf8'), { env: {}, baseDir: DEMO_DIR });

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '--no-optional-locks', ...args], { cwd, env: gitEnv(), encoding: 'utf8' });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const CALC = 'def add(a, b):\n    return a + b\n';
const TEST_CALC = 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n';

describe('WorkspaceOpsService on a git repository', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let tmp: string;
  let root: string;
  let repo: string;
  let service: WorkspaceOpsService;
  const reported: { name: string; payload: unknown }[] = [];
  const producer = { add: async (name: string, payload: unknown) => void reported.push({ name, payload }) } as unknown as JobProducer;

  beforeAll(async () => {
    execFileSync('bash', [path.join(REPO_ROOT, 'scripts/build-sandbox-image.sh')], { env: { ...process.env, SANDBOX_IMAGE: IMAGE }, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 2 });
    await ds.initialize();
    tmp = await mkdtemp(path.join(tmpdir(), 'rt-ops-repo-'));
    root = path.join(tmp, 'workspaces');
    repo = path.join(tmp, 'calc');
    await mkdir(repo);
    git(repo, 'init', '-q', '--initial-branch=main');
    await writeFile(path.join(repo, 'calc.py'), CALC);
    await writeFile(path.join(repo, 'test_calc.py'), TEST_CALC);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'calc');
    await ds.getRepository(ProjectEntity).insert({ id: 'proj1', name: 'calc', objective: 'o', requirements: [], config: {} } as never);
    // The test suite's policy (jest's setup): repositories under /tmp are allowed.
    service = new WorkspaceOpsService(ds, producer, root, new SandboxRunners({ image: IMAGE }), readOperatorPolicy().policy);
  }, 15 * 60_000);

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  async function seedRun(runId: string, repoPath: string): Promise<void> {
    const config = { ...demoConfig(), repo: repoPath };
    await ds.getRepository(RunEntity).insert({ id: runId, projectId: 'proj1', status: 'running', stage: 'INIT', config } as never);
    await ds.getRepository(AgentCallEntity).insert({
      id: `${runId}-call1`,
      runId,
      seq: 1,
      stage: 'IMPLEMENT',
      role: 'engineer',
      provider: 'replay',
      model: 'm',
      status: 'completed',
      promptHash: 'h',
      messages: [],
    });
    await ds.getRepository(ProposalEntity).insert({ id: `${runId}-P1`, runId, callId: `${runId}-call1`, label: 'P1', round: 1, status: 'accepted', body: {} } as never);
  }

  async function queueOp(runId: string, id: string, kind: 'prepare' | 'apply' | 'tests' | 'read' | 'merge' | 'tool', extra: Partial<WorkspaceOpEntity> = {}): Promise<string> {
    const opId = `${runId}-${id}`;
    await ds.getRepository(WorkspaceOpEntity).insert({ id: opId, runId, kind, status: 'queued', ...extra } as never);
    return opId;
  }

  async function implementation(runId: string, label: string, fixRound: number, files: { path: string; content: string }[], notes: string, deleted?: string[]): Promise<string> {
    const id = `${runId}-${label}`;
    await ds.getRepository(ImplementationEntity).insert({
      id,
      runId,
      callId: `${runId}-call1`,
      label,
      proposalId: `${runId}-P1`,
      fixRound,
      status: 'pending',
      body: { proposal_id: 'P1', files, ...(deleted ? { deleted } : {}), test_command: 'python -m pytest -q', notes, assumptions: [], known_gaps: [] },
    } as never);
    return id;
  }

  const opRow = (opId: string) => ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ id: opId });

  /** A run on the fixture repository with its worktree prepared (op1) and recorded on the run; answers the worktree's path. */
  async function preparedRun(runId: string): Promise<string> {
    await seedRun(runId, repo);
    const prep = await queueOp(runId, 'op1', 'prepare');
    await service.prepare(runId, prep);
    const ws = (await opRow(prep)).result?.path as string;
    await ds.getRepository(RunEntity).update({ id: runId }, { workspacePath: ws });
    return ws;
  }

  it('prepare makes a worktree on roundtable/<runId> and records branch and base commit', async () => {
    await seedRun('run_prep', repo);
    const opId = await queueOp('run_prep', 'op1', 'prepare');
    await service.prepare('run_prep', opId);

    const op = await opRow(opId);
    expect(op.status).toBe('done');
    expect(op.result).toEqual({
      path: path.join(root, 'run_prep', 'workspace'),
      tree: ['calc.py', 'test_calc.py'],
      source: 'worktree',
      origin: repo,
      branch: 'roundtable/run_prep',
      base_commit: git(repo, 'rev-parse', 'main').trim(),
      notes: [],
    });
    expect(reported).toContainEqual({ name: 'workspace.done', payload: { runId: 'run_prep', opId } });
  });

  it('prepare records a repo missing on this machine as the op failure instead of retrying', async () => {
    await seedRun('run_missing', path.join(tmp, 'nope'));
    const opId = await queueOp('run_missing', 'op1', 'prepare');
    await service.prepare('run_missing', opId);
    const op = await opRow(opId);
    expect(op.status).toBe('failed');
    expect(op.error).toBe(`repo ${path.join(tmp, 'nope')}: does not exist on the test-runner`);
    expect(reported).toContainEqual({ name: 'workspace.done', payload: { runId: 'run_missing', opId } });
  });

  it('apply commits each round on the run branch and stores the diff of every round; sandbox caches stay out; the repository is untouched', async () => {
    const runId = 'run_rounds';
    const before = { head: git(repo, 'rev-parse', 'HEAD'), status: git(repo, 'status', '--porcelain', '--untracked-files=all'), calc: sha(path.join(repo, 'calc.py')), index: sha(path.join(repo, '.git/index')) };
    const ws = await preparedRun(runId);

    // I1: mul with a wrong body and its test.
    const i1 = await implementation(runId, 'I1', 0, [
      { path: 'calc.py', content: `${CALC}\n\ndef mul(a, b):\n    return a + b\n` },
      { path: 'test_mul.py', content: 'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n' },
    ], 'mul, first cut');
    const apply1 = await queueOp(runId, 'op2', 'apply', { implementationId: i1 });
    await service.apply(runId, apply1, i1);

    // T1 in the Docker sandbox, which leaves caches in the workspace (as its own user).
    const command = 'python -m pytest -q; s=$?; mkdir -p __pycache__ && echo c > __pycache__/calc.cpython-311.pyc; exit $s';
    const t1 = await queueOp(runId, 'op3', 'tests', { implementationId: i1, result: { command, timeoutS: 60, testLabel: 'T1' } });
    await service.runTests(runId, t1);
    expect((await opRow(t1)).result).toMatchObject({ runner: 'docker', passed: 1, failed: 1 });

    // I1f1 fixes calc.py only.
    const i1f1 = await implementation(runId, 'I1f1', 1, [{ path: 'calc.py', content: `${CALC}\n\ndef mul(a, b):\n    return a * b\n` }], 'mul multiplies');
    const apply2 = await queueOp(runId, 'op4', 'apply', { implementationId: i1f1 });
    await service.apply(runId, apply2, i1f1);

    const [r1, r2] = [(await opRow(apply1)).result!, (await opRow(apply2)).result!];
    expect(r1).toMatchObject({
      workspace_source: 'worktree',
      branch: `roundtable/${runId}`,
      committed: true,
      round_diffstat: [{ path: 'calc.py', added: 4, deleted: 0 }, { path: 'test_mul.py', added: 5, deleted: 0 }],
      diff_artifact_id: `${apply1}-diff`,
      diff_truncated: false,
    });
    expect(r2).toMatchObject({
      committed: true,
      round_diffstat: [{ path: 'calc.py', added: 1, deleted: 1 }],
      diffstat: [{ path: 'calc.py', added: 4, deleted: 0 }, { path: 'test_mul.py', added: 5, deleted: 0 }],
      diff_artifact_id: `${apply2}-diff`,
    });
    expect(git(repo, 'rev-parse', `roundtable/${runId}`).trim()).toBe(r2.commit);
    expect(git(repo, 'log', '--format=%s', `roundtable/${runId}`).trim().split('\n')).toEqual(['I1f1: mul multiplies', 'I1: mul, first cut', 'calc']);
    // The tests left caches in the workspace; no commit has them.
    expect(existsSync(path.join(ws, '.pytest_cache'))).toBe(true);
    expect(existsSync(path.join(ws, '__pycache__/calc.cpython-311.pyc'))).toBe(true);
    expect(git(repo, 'ls-tree', '-r', '--name-only', `roundtable/${runId}`).trim().split('\n')).toEqual(['calc.py', 'test_calc.py', 'test_mul.py']);

    const diff = await ds.getRepository(ArtifactEntity).findOneByOrFail({ id: `${apply2}-diff` });
    expect(diff).toMatchObject({ kind: 'diff', path: 'diffs/I1f1.diff', callId: null });
    expect(diff.content).toContain('+++ b/test_mul.py'); // written in I1, still in I1f1's diff
    expect(diff.content).toContain('+    return a * b');
    expect(diff.content).not.toContain('+    return a + b'); // I1's wrong body is gone from the cumulative view

    // The workflow's view: each implementation carries its commit and the cumulative diff.
    const run = await ds.getRepository(RunEntity).findOneByOrFail({ id: runId });
    const state = await loadBuildRunState(ds.manager, run, new Date());
    expect(state.implementations.map((i) => [i.label, i.diff?.commit, i.diff?.source])).toEqual([
      ['I1', r1.commit, 'worktree'],
      ['I1f1', r2.commit, 'worktree'],
    ]);
    expect(state.implementations[1].diff?.text).toBe(diff.content);

    expect({ head: git(repo, 'rev-parse', 'HEAD'), status: git(repo, 'status', '--porcelain', '--untracked-files=all'), calc: sha(path.join(repo, 'calc.py')), index: sha(path.join(repo, '.git/index')) }).toEqual(before);
  });

  it('a repeated apply job adds no commit and measures its round from the round before', async () => {
    const runId = 'run_retry';
    await preparedRun(runId);
    const i1 = await implementation(runId, 'I1', 0, [{ path: 'x.py', content: 'X = 1\n' }], 'x');
    const apply1 = await queueOp(runId, 'op2', 'apply', { implementationId: i1 });
    await service.apply(runId, apply1, i1);
    // The job ran but its row was never marked done (the process died): BullMQ delivers it again.
    const first = (await opRow(apply1)).result!;
    await ds.getRepository(WorkspaceOpEntity).update({ id: apply1 }, { status: 'queued', result: null });

    await service.apply(runId, apply1, i1);

    const again = (await opRow(apply1)).result!;
    expect(again).toMatchObject({ commit: first.commit, committed: false, round_diffstat: [{ path: 'x.py', added: 1, deleted: 0 }] });
  });

  it('apply deletes the files an implementation names, in the same commit as its writes; asked again, it changes nothing', async () => {
    const runId = 'run_delete';
    const ws = await preparedRun(runId);
    const i1 = await implementation(runId, 'I1', 0, [{ path: 'calc2.py', content: CALC }], 'calc.py becomes calc2.py', ['calc.py']);
    const apply1 = await queueOp(runId, 'op2', 'apply', { implementationId: i1 });
    await service.apply(runId, apply1, i1);

    const r1 = (await opRow(apply1)).result!;
    expect(r1).toMatchObject({ committed: true, written: ['calc2.py'], deleted: ['calc.py'] });
    expect((r1.round_diffstat as { path: string }[]).map((d) => d.path).sort()).toEqual(['calc.py', 'calc2.py']);
    expect(existsSync(path.join(ws, 'calc.py'))).toBe(false);
    expect(git(repo, 'ls-tree', '-r', '--name-only', `roundtable/${runId}`).trim().split('\n')).toEqual(['calc2.py', 'test_calc.py']);
    expect(git(repo, 'log', '-1', '--format=%B', `roundtable/${runId}`)).toContain('Files: calc2.py\nDeleted: calc.py\n');

    // Delivered again after a crash: the file is already gone, so nothing happens and nothing fails.
    await ds.getRepository(WorkspaceOpEntity).update({ id: apply1 }, { status: 'queued', result: null });
    await service.apply(runId, apply1, i1);
    expect((await opRow(apply1))).toMatchObject({ status: 'done', result: expect.objectContaining({ commit: r1.commit, committed: false, not_there: ['calc.py'] }) });
  });

  it('read answers each asked path from the worktree: content capped, and a missing, escaping, binary or directory path answered with why', async () => {
    const runId = 'run_read';
    const ws = await preparedRun(runId);
    await writeFile(path.join(tmp, 'secret.txt'), 'host secret\n');
    await symlink(path.join(tmp, 'secret.txt'), path.join(ws, 'link.txt'));
    await writeFile(path.join(ws, 'big.py'), 'x = 1\n'.repeat(200));
    await writeFile(path.join(ws, 'blob.bin'), Buffer.from([0x7f, 0x45, 0x00, 0x01]));
    await mkdir(path.join(ws, 'pkg'));

    const paths = ['calc.py', 'nope.py', 'link.txt', 'big.py', 'blob.bin', 'pkg', '../secret.txt'];
    const request = { label: 'C1', role: 'critic', call_id: `${runId}-c2`, paths, reason: null, refused: [], max_bytes_per_file: 256 };
    const opId = await queueOp(runId, 'op2', 'read', { result: request });
    await service.read(runId, opId);

    const op = await opRow(opId);
    expect(op.status).toBe('done');
    const files = (op.result as { files: { path: string; content: string | null; bytes: number | null; truncated: boolean; error: string | null }[] }).files;
    expect(op.result).toMatchObject(request); // what was asked stays on the row beside what was read
    expect(files[0]).toEqual({ path: 'calc.py', content: CALC, bytes: CALC.length, truncated: false, error: null });
    expect(files[1]).toEqual({ path: 'nope.py', content: null, bytes: null, truncated: false, error: 'no such file in the workspace' });
    expect(files[2]).toMatchObject({ path: 'link.txt', content: null, error: expect.stringMatching(/^refused: /) });
    expect(files[3]).toEqual({ path: 'big.py', content: 'x = 1\n'.repeat(200).slice(0, 256), bytes: 1200, truncated: true, error: null });
    expect(files[4]).toMatchObject({ path: 'blob.bin', content: null, error: 'a binary file; not shown' });
    expect(files[5]).toMatchObject({ path: 'pkg', content: null, error: expect.stringMatching(/directory|could not be read/) });
    expect(files[6]).toMatchObject({ path: '../secret.txt', content: null, error: expect.stringMatching(/^refused: /) });
    expect(JSON.stringify(files)).not.toContain('host secret');
    expect(reported).toContainEqual({ name: 'workspace.done', payload: { runId, opId } });

    // The workflow's view: the request and its files, for the next prompt.
    const state = await loadBuildRunState(ds.manager, await ds.getRepository(RunEntity).findOneByOrFail({ id: runId }), new Date());
    expect(state.fileReads).toEqual([
      { opId, label: 'C1', role: 'critic', callId: `${runId}-c2`, paths, reason: null, refused: [], files },
    ]);
  });

  it('merge: a run branch approved by no person (autonomy 3) is refused unless the policy allows it; a person\'s approval merges', async () => {
    const runId = 'run_merge';
    await preparedRun(runId);
    const i1 = await implementation(runId, 'I1', 0, [{ path: 'calc.py', content: `${CALC}\n\ndef mul(a, b):\n    return a * b\n` }], 'mul');
    await service.apply(runId, await queueOp(runId, 'op2', 'apply', { implementationId: i1 }), i1);
    const mainBefore = git(repo, 'rev-parse', 'main').trim();
    const asked = (approved_by: string) => ({ into: 'main', strategy: 'ff', message: `merge ${runId}\n\nApproved-by: ${approved_by}`, approved_by });

    // The suite's policy allows merges under /tmp, but not without a person (the default).
    const byAutonomy = await queueOp(runId, 'op3', 'merge', { result: asked(AUTONOMOUS_APPROVER) });
    await service.merge(runId, byAutonomy);
    expect((await opRow(byAutonomy)).result).toMatchObject({ merged: false, code: 'policy', reason: expect.stringContaining('approvals.autonomous_merge is false') });
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(mainBefore);

    // A token name in approved_by: a person approved at the merge gate.
    const byPerson = await queueOp(runId, 'op4', 'merge', { result: asked('lead') });
    await service.merge(runId, byPerson);
    const merged = (await opRow(byPerson)).result!;
    expect(merged).toMatchObject({ merged: true, previous: mainBefore, reason: null });
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(merged.commit);
    git(repo, 'reset', '-q', '--hard', mainBefore); // the next tests start from the fixture's main

    // An operator who allows autonomous merges: the same op merges.
    const allowing = readOperatorPolicy().policy;
    const lenient = new WorkspaceOpsService(ds, producer, root, new SandboxRunners({ image: IMAGE }), { ...allowing, approvals: { ...allowing.approvals, autonomous_merge: true } });
    const again = await queueOp(runId, 'op5', 'merge', { result: asked(AUTONOMOUS_APPROVER) });
    await lenient.merge(runId, again);
    expect((await opRow(again)).result).toMatchObject({ merged: true, reason: null });
    git(repo, 'reset', '-q', '--hard', mainBefore);
  });

  it('tool: an agent-mode engineer\'s tools run in the worktree, paths checked, run_tests in the sandbox only where allowed; finish collects the changes', async () => {
    const runId = 'run_tools';
    const ws = await preparedRun(runId);
    await writeFile(path.join(tmp, 'outside.txt'), 'host file\n');
    const agentConfig = (runTests: boolean) => ({ ...demoConfig(), repo, agents: { ...demoConfig().agents, engineer: { ...demoConfig().agents.engineer, mode: 'agent' } }, permissions: { engineer: { workspace: 'write', run_tests: runTests } } });
    await ds.getRepository(RunEntity).update({ id: runId }, { config: agentConfig(true) as never });
    const c = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });
    const request = (calls: ReturnType<typeof c>[], collect = false) => ({ label: 'I1', turn: 1, call_id: `${runId}-c9`, calls, collect, test_command: 'python -m pytest -q', test_timeout_s: 60 });

    const op1 = await queueOp(runId, 'op2', 'tool', {
      result: request([
        c('a', 'list_files'),
        c('b', 'read_file', { path: 'calc.py' }),
        c('c', 'write_file', { path: 'calc.py', content: `${CALC}\n\ndef mul(a, b):\n    return a * b\n` }),
        c('d', 'write_file', { path: 'test_mul.py', content: 'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n' }),
        c('e', 'delete_file', { path: 'test_calc.py' }),
        c('f', 'run_tests'),
        c('g', 'write_file', { path: '../outside.txt', content: 'overwritten' }),
        c('h', 'read_file', { path: '.git/config' }),
        c('i', 'shell', { command: 'id' }),
      ]),
    });
    await service.tool(runId, op1);
    const r1 = (await opRow(op1)).result as { results: { id: string; content: string; is_error: boolean }[]; changes: unknown };
    const by = Object.fromEntries(r1.results.map((r) => [r.id, r]));
    expect(by.a).toEqual({ id: 'a', name: 'list_files', content: 'calc.py\ntest_calc.py', is_error: false });
    expect(by.b).toMatchObject({ content: CALC, is_error: false });
    expect(by.c).toMatchObject({ content: expect.stringMatching(/^wrote calc.py/), is_error: false });
    expect(by.e).toMatchObject({ content: 'deleted test_calc.py', is_error: false });
    expect(by.f).toMatchObject({ content: expect.stringMatching(/^exit 0: 1 passed, 0 failed, 0 errors\n/), is_error: false });
    expect(by.g).toMatchObject({ content: expect.stringMatching(/^refused: .*'\.\.'/), is_error: true });
    expect(by.h).toMatchObject({ content: expect.stringMatching(/^refused: .*\.git/), is_error: true });
    expect(by.i).toMatchObject({ content: expect.stringMatching(/^unknown tool "shell"/), is_error: true });
    expect(readFileSync(path.join(tmp, 'outside.txt'), 'utf8')).toBe('host file\n');
    expect(r1.changes).toBeNull();
    expect(existsSync(path.join(ws, 'test_calc.py'))).toBe(false);

    // run_tests is refused where the permission is off (read again from the run row, not the op).
    await ds.getRepository(RunEntity).update({ id: runId }, { config: agentConfig(false) as never });
    const op2 = await queueOp(runId, 'op3', 'tool', { result: request([c('j', 'run_tests'), c('k', 'finish', { notes: 'mul' })], true) });
    await service.tool(runId, op2);
    const r2 = (await opRow(op2)).result as { results: { id: string; content: string; is_error: boolean }[]; changes: { files: { path: string }[]; deleted: string[]; diff_artifact_id: string } };
    expect(r2.results).toEqual([{ id: 'j', name: 'run_tests', content: expect.stringMatching(/^refused: permissions\.engineer\.run_tests is false/), is_error: true }]);
    // finish: git's view of the worktree, as a CLI agent's work is taken.
    expect(r2.changes.files.map((f) => f.path).sort()).toEqual(['calc.py', 'test_mul.py']);
    expect(r2.changes.deleted).toEqual(['test_calc.py']);
    const diff = await ds.getRepository(ArtifactEntity).findOneByOrFail({ id: r2.changes.diff_artifact_id });
    expect(diff.content).toContain('+def mul(a, b):');
    expect(reported).toContainEqual({ name: 'workspace.done', payload: { runId, opId: op2 } });
  });

  it('commit messages carry the label and the first line of the notes', () => {
    expect(commitMessage('run_1', 'I1f1', { proposal_id: 'P2', notes: 'Fix the boundary\nmore', files: [{ path: 'a.py', content: '' }] })).toBe(
      'I1f1: Fix the boundary\n\nRoundtable run run_1, implementation I1f1 of P2.\nFiles: a.py\n',
    );
    expect(commitMessage('r', 'I1', { proposal_id: 'P1', notes: '', files: [] }).split('\n')[0]).toBe('I1: files from the engineer');
    expect(commitMessage('r', 'I1', { proposal_id: 'P1', notes: 'x'.repeat(100), files: [] }).split('\n')[0]).toHaveLength('I1: '.length + 72);
  });
});
