import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import { loadProjectConfig, readOperatorPolicy } from '@roundtable/contracts';
import { ArtifactEntity, createDataSource, createTestDatabase, ExperimentEntity, preregistrationHash, ProjectEntity, RunEntity, TestDatabase, WorkspaceOpEntity } from '@roundtable/persistence';
import type { JobProducer } from '@roundtable/queues';
import { gitEnv } from '@roundtable/sandbox';
import { SandboxRunners } from './sandbox-runners';
import { WorkspaceOpsService } from './workspace-ops.service';

/** runExperiment on a real git repository: real Postgres, real git, the real sandbox (and the process runner once). */
jest.setTimeout(180_000);

const REPO_ROOT = path.resolve(__dirname, '../../..');
const IMAGE = process.env.SANDBOX_IMAGE ?? 'roundtable/sandbox:latest';
const DEMO_DIR = path.join(REPO_ROOT, 'examples/dd-demo');
const demoConfig = () => loadProjectConfig(readFileSync(path.join(DEMO_DIR, 'project.yaml'), 'utf8'), { env: {}, baseDir: DEMO_DIR });

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '--no-optional-locks', ...args], { cwd, env: gitEnv(), encoding: 'utf8' });

/**
 * The experiment's script: SHARPE is what the commit says; `drop` leaves n_trades out, `nofile`
 * writes no metrics file (the JSON line on stdout is then the only report).
 */
const script = (sharpe: number) => `import json, os, sys
SHARPE = ${sharpe}
m = {"sharpe_oos": SHARPE, "n_trades": 12}
if "drop" in sys.argv:
    del m["n_trades"]
target = os.environ.get("ROUNDTABLE_METRICS")
print("metrics go to", target)
if target and "nofile" not in sys.argv:
    with open(target, "w") as f:
        json.dump(m, f)
print(json.dumps(m))
`;

const METRICS = ['sharpe_oos', 'n_trades'];

describe('WorkspaceOpsService.runExperiment', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let tmp: string;
  let root: string;
  let repo: string;
  let pinned: string;
  let service: WorkspaceOpsService;
  const reported: { name: string; payload: unknown }[] = [];
  const producer = { add: async (name: string, payload: unknown) => void reported.push({ name, payload }) } as unknown as JobProducer;

  beforeAll(async () => {
    execFileSync('bash', [path.join(REPO_ROOT, 'scripts/build-sandbox-image.sh')], { env: { ...process.env, SANDBOX_IMAGE: IMAGE }, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 2 });
    await ds.initialize();
    tmp = await mkdtemp(path.join(tmpdir(), 'rt-experiment-'));
    root = path.join(tmp, 'workspaces');
    repo = path.join(tmp, 'bt');
    await mkdir(repo);
    git(repo, 'init', '-q', '--initial-branch=main');
    await writeFile(path.join(repo, 'exp.py'), script(1.5));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'the experiment as preregistered');
    pinned = git(repo, 'rev-parse', 'HEAD').trim();
    // The repository moves on after the preregistration: the run must still see the pinned commit.
    await writeFile(path.join(repo, 'exp.py'), script(9.9));
    git(repo, 'commit', '-q', '-am', 'later work');
    await ds.getRepository(ProjectEntity).insert({ id: 'proj1', name: 'bt', objective: 'o', requirements: [], config: {} } as never);
    service = new WorkspaceOpsService(ds, producer, root, new SandboxRunners({ image: IMAGE }), readOperatorPolicy().policy);
  }, 15 * 60_000);

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  const prereg = (command: string) => ({
    title: 'exp',
    hypothesis: 'h',
    method: { description: 'd', command, metrics: METRICS, timeout_s: 60 },
    success_criteria: [{ expr: 'sharpe_oos >= 0.5', note: 'n' }],
    failure_criteria: [{ expr: 'sharpe_oos < 0', note: 'n' }],
    domain: 'trading',
  });

  /** A locked experiment, a run, and a queued experiment op for it; answers the op's id. */
  async function queuedExperiment(
    id: string,
    opts: { command?: string; commit?: string; sandbox?: unknown; storedPrereg?: Record<string, unknown>; requestHash?: string } = {},
  ): Promise<string> {
    const command = opts.command ?? 'python3 exp.py';
    const locked = prereg(command);
    const hash = preregistrationHash(locked);
    await ds.getRepository(ExperimentEntity).insert({ id, projectId: 'proj1', prereg: opts.storedPrereg ?? locked, preregHash: hash, lockedAt: new Date() } as never);
    const runId = `run_${id}`;
    const config = { ...demoConfig(), ...(opts.sandbox ? { sandbox: opts.sandbox } : {}) };
    await ds.getRepository(RunEntity).insert({ id: runId, projectId: 'proj1', status: 'running', stage: 'INIT', config } as never);
    const opId = `${runId}-x1`;
    const request = { experiment_id: id, prereg_hash: opts.requestHash ?? hash, repo, commit: opts.commit ?? pinned.slice(0, 12), command, metrics: METRICS, timeout_s: 60 };
    await ds.getRepository(WorkspaceOpEntity).insert({ id: opId, runId, kind: 'experiment', status: 'queued', result: request } as never);
    return opId;
  }

  const opRow = (opId: string) => ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ id: opId });
  const runIdOf = (opId: string) => opId.replace(/-x1$/, '');

  async function run(opId: string): Promise<WorkspaceOpEntity> {
    await service.runExperiment(runIdOf(opId), opId);
    expect(reported).toContainEqual({ name: 'tests.done', payload: { runId: runIdOf(opId), opId } });
    return opRow(opId);
  }

  it('runs the command at the pinned commit in the sandbox and reports the metrics the file holds', async () => {
    const opId = await queuedExperiment('exp_ok');
    const op = await run(opId);
    expect(op.error).toBeNull();
    expect(op.status).toBe('done');
    expect(op.result).toMatchObject({
      experiment_id: 'exp_ok',
      commit: pinned.slice(0, 12),
      command: 'python3 exp.py',
      exit_code: 0,
      timed_out: false,
      oom_killed: false,
      metrics: { sharpe_oos: 1.5, n_trades: 12 },
      metrics_error: null,
      metrics_source: 'file',
      output_artifact_id: `${opId}-out`,
      runner: 'docker',
    });
    expect(op.result?.output_tail).toContain('metrics go to /workspace/.roundtable/metrics.json');
    const artifact = await ds.getRepository(ArtifactEntity).findOneByOrFail({ id: `${opId}-out` });
    expect(artifact).toMatchObject({ kind: 'test_output', path: `experiments/${opId}.log` });
    // The repository itself is where it was: on main, at its later commit, clean.
    expect(git(repo, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('refuses a second run of an experiment that has a result', async () => {
    const opId = await queuedExperiment('exp_twice');
    expect((await run(opId)).status).toBe('done');
    await ds.getRepository(ExperimentEntity).update({ id: 'exp_twice' }, { result: { metrics: { sharpe_oos: 1.5 } } } as never);
    const second = 'run_exp_twice-x2';
    const request = (await opRow(opId)).result as Record<string, unknown>;
    const { experiment_id, prereg_hash, commit, command } = request;
    await ds.getRepository(WorkspaceOpEntity).insert({
      id: second,
      runId: 'run_exp_twice',
      kind: 'experiment',
      status: 'queued',
      result: { experiment_id, prereg_hash, repo, commit, command, metrics: METRICS, timeout_s: 60 },
    } as never);
    await service.runExperiment('run_exp_twice', second);
    const op = await opRow(second);
    expect(op.status).toBe('failed');
    expect(op.error).toBe('experiment exp_twice already has a result; a second run is refused');
    expect(await ds.getRepository(ArtifactEntity).countBy({ id: `${second}-out` })).toBe(0);
  });

  it('refuses an experiment whose stored preregistration was altered after it was locked', async () => {
    const altered = { ...prereg('python3 exp.py'), failure_criteria: [] };
    const opId = await queuedExperiment('exp_altered', { storedPrereg: altered });
    const op = await run(opId);
    const hash = preregistrationHash(prereg('python3 exp.py'));
    expect(op.status).toBe('failed');
    expect(op.error).toBe(`the stored preregistration of exp_altered no longer hashes to its locked hash ${hash.slice(0, 12)}…: it was altered after it was locked; refused`);
  });

  it('refuses an op queued for another preregistration hash, and an experiment that does not exist', async () => {
    const opId = await queuedExperiment('exp_other', { requestHash: 'f'.repeat(64) });
    expect((await run(opId)).error).toMatch(/^the op was queued for preregistration ffffffffffff… but experiment exp_other is locked with [0-9a-f]{12}…; refused$/);
    const gone = await queuedExperiment('exp_gone');
    await ds.getRepository(ExperimentEntity).delete({ id: 'exp_gone' });
    expect((await run(gone)).error).toBe('experiment exp_gone does not exist; refused');
  });

  it('gives no metrics, naming the missing one, when the command leaves a declared metric out', async () => {
    const op = await run(await queuedExperiment('exp_missing', { command: 'python3 exp.py drop' }));
    expect(op.status).toBe('done');
    expect(op.result).toMatchObject({ exit_code: 0, metrics: null, metrics_error: 'missing metrics: n_trades', metrics_source: 'file' });
  });

  it('gives no metrics when the command exits non-zero', async () => {
    const op = await run(await queuedExperiment('exp_exit', { command: 'python3 exp.py && exit 2' }));
    expect(op.result).toMatchObject({ exit_code: 2, metrics: null, metrics_error: 'the command exited 2', metrics_source: null });
  });

  it('reads the last JSON line of the output when no file was written (process runner: the path is the worktree\'s own)', async () => {
    const opId = await queuedExperiment('exp_stdout', { command: 'python3 exp.py nofile', sandbox: { runner: 'process' } });
    const op = await run(opId);
    expect(op.result).toMatchObject({ metrics: { sharpe_oos: 1.5, n_trades: 12 }, metrics_error: null, metrics_source: 'stdout', runner: 'process' });
    expect(op.result?.output_tail).toContain(`metrics go to ${path.join(root, runIdOf(opId), 'experiment', '.roundtable', 'metrics.json')}`);
  });

  it('fails with the reason when the pinned commit is gone from the repository', async () => {
    const gone = 'deadbeef'.repeat(5);
    const op = await run(await queuedExperiment('exp_rewritten', { commit: gone }));
    expect(op.status).toBe('failed');
    expect(op.error).toBe(`the pinned commit ${gone} is not in ${repo} any more (rewritten history?); a changed copy of the experiment is a new experiment`);
  });
});
