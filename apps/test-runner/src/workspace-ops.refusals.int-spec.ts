import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import { loadProjectConfig, OperatorPolicy } from '@roundtable/contracts';
import { ArtifactEntity, createDataSource, createTestDatabase, ProjectEntity, RunEntity, TestDatabase, WorkspaceOpEntity } from '@roundtable/persistence';
import type { JobProducer } from '@roundtable/queues';
import { dockerEndpoint, DockerTestRunner, prepareEmptyWorkspace, writeFileChanges } from '@roundtable/sandbox';
import { SandboxRunners, TestRunnerChoice } from './sandbox-runners';
import { WorkspaceOpsService } from './workspace-ops.service';

/**
 * The test-runner's own check of what a run asks for: each run row here is written straight to
 * Postgres, around the api, as an attacker with the database's password could, and each is
 * refused by the worker with the policy's words, recorded on the op (the run moves on instead
 * of waiting in PREPARE or TEST). Then what the engine itself refuses, and what a copy of a
 * repository under an allowed root leaves out. Real Postgres, real Docker.
 */
jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '../../..');
const IMAGE = process.env.SANDBOX_IMAGE ?? 'roundtable/sandbox:latest';
const DEMO_DIR = path.join(REPO, 'examples/dd-demo');
const demoConfig = () => loadProjectConfig(readFileSync(path.join(DEMO_DIR, 'project.yaml'), 'utf8'), { env: {}, baseDir: DEMO_DIR });
const POLICY = 'the operator policy (ROUNDTABLE_POLICY)';

describe('WorkspaceOpsService refuses, at the worker, what the operator policy does not allow', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let tmp: string;
  let root: string;
  let allowed: string;
  let outside: string;
  let policy: OperatorPolicy;
  let engineCpus: number;
  const reported: { name: string; payload: unknown }[] = [];
  const producer = { add: async (name: string, payload: unknown) => void reported.push({ name, payload }) } as unknown as JobProducer;
  const runners = new SandboxRunners({ image: IMAGE });
  const service = () => new WorkspaceOpsService(ds, producer, root, runners, policy);

  beforeAll(async () => {
    execFileSync('bash', [path.join(REPO, 'scripts/build-sandbox-image.sh')], { env: { ...process.env, SANDBOX_IMAGE: IMAGE }, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 2 });
    await ds.initialize();
    tmp = await realpath(await mkdtemp(path.join(tmpdir(), 'rt-ops-refusals-')));
    root = path.join(tmp, 'workspaces');
    allowed = path.join(tmp, 'allowed');
    outside = path.join(tmp, 'outside');
    await mkdir(allowed);
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'not for the sandbox\n');
    engineCpus = ((await dockerEndpoint(process.env.DOCKER_HOST).client.info()) as { NCPU: number }).NCPU;
    // Stricter than the test suite's: one repository root, no plain-process runs, the default
    // limits, and a cpus maximum above the engine's so the engine's own count is what refuses.
    policy = OperatorPolicy.parse({ repos: { roots: [allowed] }, sandbox: { allow_process: false, max_cpus: engineCpus + 8 } });
    await ds.getRepository(ProjectEntity).insert({ id: 'proj1', name: 'dd-demo', objective: 'o', requirements: [], config: {} } as never);
  }, 15 * 60_000);

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  const opRow = (opId: string) => ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ id: opId });

  async function queuedPrepare(runId: string, repo: string): Promise<string> {
    await ds.getRepository(RunEntity).insert({ id: runId, projectId: 'proj1', status: 'running', stage: 'INIT', config: { ...demoConfig(), repo } } as never);
    const opId = `${runId}-op1`;
    await ds.getRepository(WorkspaceOpEntity).insert({ id: opId, runId, kind: 'prepare', status: 'queued' } as never);
    return opId;
  }

  /** A run in TEST with one passing pytest file and a queued tests op, its sandbox as stored. */
  async function queuedTestRun(runId: string, sandbox: unknown, opts: { timeoutS?: number; command?: string; workspace?: string } = {}): Promise<string> {
    const ws = opts.workspace ?? (await prepareEmptyWorkspace(root, runId));
    if (!opts.workspace) await writeFileChanges(ws, [{ path: 'test_ok.py', content: 'def test_ok():\n    assert True\n' }]);
    const config = { ...demoConfig(), sandbox };
    await ds.getRepository(RunEntity).insert({ id: runId, projectId: 'proj1', status: 'running', stage: 'TEST', config, workspacePath: ws } as never);
    const opId = `${runId}-t1`;
    const result = { command: opts.command ?? 'python -m pytest -q', timeoutS: opts.timeoutS ?? 60, testLabel: 'T1' };
    await ds.getRepository(WorkspaceOpEntity).insert({ id: opId, runId, kind: 'tests', status: 'queued', result } as never);
    return opId;
  }

  /** The op failed with `error`, was reported back (so the run moves on), and nothing ran. */
  async function expectRefusedTestRun(runId: string, opId: string, error: string): Promise<void> {
    const op = await opRow(opId);
    expect(op.status).toBe('failed');
    expect(op.error).toBe(error);
    expect(op.result).toEqual({ command: 'python -m pytest -q', timeoutS: expect.any(Number), testLabel: 'T1' });
    expect(reported).toContainEqual({ name: 'tests.done', payload: { runId, opId } });
    expect(await ds.getRepository(ArtifactEntity).countBy({ runId })).toBe(0);
  }

  describe('prepare: repo must lie under repos.roots, symlinks resolved', () => {
    const refusal = (repo: string, resolved = '') =>
      `refused by the test-runner: repo: ${repo}: repositories may only be read from [${allowed}] by ${POLICY} (repos.roots); this path is outside them${resolved}`;

    it('refuses repo: /etc', async () => {
      const opId = await queuedPrepare('run_repo_etc', '/etc');
      await service().prepare('run_repo_etc', opId);
      const op = await opRow(opId);
      expect(op.status).toBe('failed');
      expect(op.error).toBe(refusal('/etc'));
      expect(reported).toContainEqual({ name: 'workspace.done', payload: { runId: 'run_repo_etc', opId } });
      expect(existsSync(path.join(root, 'run_repo_etc'))).toBe(false);
    });

    it('refuses a symlink under an allowed root that leads out of it', async () => {
      const link = path.join(allowed, 'looks-allowed');
      await symlink(outside, link);
      const opId = await queuedPrepare('run_repo_link', link);
      await service().prepare('run_repo_link', opId);
      const op = await opRow(opId);
      expect(op.status).toBe('failed');
      expect(op.error).toBe(refusal(link, ' (symlinks resolved)'));
      expect(existsSync(path.join(root, 'run_repo_link'))).toBe(false);
    });

    it('refuses a path outside the roots that does not exist, as outside, not as missing', async () => {
      const opId = await queuedPrepare('run_repo_nowhere', path.join(outside, 'nope'));
      await service().prepare('run_repo_nowhere', opId);
      expect((await opRow(opId)).error).toBe(refusal(path.join(outside, 'nope')));
    });

    it("copies a directory under the root, leaving out what its owner keeps from others: the tests cannot read a 0700 directory's secret", async () => {
      const proj = path.join(allowed, 'proj');
      await mkdir(path.join(proj, 'private'), { recursive: true });
      await writeFile(path.join(proj, 'test_ok.py'), 'def test_ok():\n    assert True\n');
      await writeFile(path.join(proj, 'private/secret.txt'), 'SECRET-MARKER-7f3a\n');
      await chmod(path.join(proj, 'private'), 0o700);

      const prep = await queuedPrepare('run_repo_copy', proj);
      await service().prepare('run_repo_copy', prep);
      const prepared = await opRow(prep);
      expect(prepared.status).toBe('done');
      expect(prepared.result).toMatchObject({ source: 'copy', origin: proj, tree: ['test_ok.py'] });
      expect(prepared.result?.notes).toEqual([expect.stringMatching(/^1 path\(s\) not readable by others in the source were left out of the copy .*: private\/$/)]);

      // Through the run's own test command, in the sandbox, looking everywhere it can.
      const command = "cat private/secret.txt; grep -rs SECRET-MARKER /workspace /tmp || echo 'NOT FOUND'; python -m pytest -q";
      const ws = prepared.result?.path as string;
      await ds.getRepository(RunEntity).update({ id: 'run_repo_copy' }, { workspacePath: ws });
      const opId = `run_repo_copy-t1`;
      await ds.getRepository(WorkspaceOpEntity).insert({ id: opId, runId: 'run_repo_copy', kind: 'tests', status: 'queued', result: { command, timeoutS: 60, testLabel: 'T1' } } as never);
      await service().runTests('run_repo_copy', opId);
      const op = await opRow(opId);
      expect(op.status).toBe('done');
      expect(op.result).toMatchObject({ runner: 'docker', passed: 1 });
      expect(String(op.result?.output_tail)).toContain('NOT FOUND');
      expect(String(op.result?.output_tail)).not.toContain('SECRET-MARKER-7f3a');
    });
  });

  describe('tests: the sandbox asked for must fit the policy and the engine', () => {
    it('refuses sandbox: process under a policy without allow_process', async () => {
      const opId = await queuedTestRun('run_t_process', { runner: 'process' });
      await service().runTests('run_t_process', opId);
      await expectRefusedTestRun(
        'run_t_process',
        opId,
        `refused by the test-runner: sandbox.runner: process (tests outside the sandbox) is not allowed by ${POLICY} (sandbox.allow_process: false); use docker, the default`,
      );
    });

    it('refuses pids: 1000000', async () => {
      const opId = await queuedTestRun('run_t_pids', { runner: 'docker', pids: 1_000_000 });
      await service().runTests('run_t_pids', opId);
      await expectRefusedTestRun('run_t_pids', opId, `refused by the test-runner: sandbox.pids: 1000000 is over the limit of 1024 set by ${POLICY} (sandbox.max_pids)`);
    });

    it('refuses memory_mb: 1048576', async () => {
      const opId = await queuedTestRun('run_t_mem', { runner: 'docker', memory_mb: 1_048_576 });
      await service().runTests('run_t_mem', opId);
      await expectRefusedTestRun('run_t_mem', opId, `refused by the test-runner: sandbox.memory_mb: 1048576 is over the limit of 4096 set by ${POLICY} (sandbox.max_memory_mb)`);
    });

    it('refuses an image the policy does not list', async () => {
      const opId = await queuedTestRun('run_t_image', { runner: 'docker', image: 'attacker/image:latest' });
      await service().runTests('run_t_image', opId);
      await expectRefusedTestRun(
        'run_t_image',
        opId,
        `refused by the test-runner: sandbox.image: attacker/image:latest is not an image allowed by ${POLICY}; allowed: [roundtable/sandbox:latest] besides the test-runner's default (sandbox.images), or leave image unset`,
      );
    });

    it("refuses more cpus than the engine has, within the policy's maximum", async () => {
      const opId = await queuedTestRun('run_t_cpus', { runner: 'docker', cpus: engineCpus + 1 });
      await service().runTests('run_t_cpus', opId);
      await expectRefusedTestRun(
        'run_t_cpus',
        opId,
        `refused by the test-runner: sandbox.cpus: ${engineCpus + 1} is more than the Docker engine's ${engineCpus} CPUs; ask for at most ${engineCpus}`,
      );
    });

    it('refuses a test timeout over sandbox.max_timeout_s', async () => {
      const opId = await queuedTestRun('run_t_timeout', { runner: 'docker' }, { timeoutS: 99_999 });
      await service().runTests('run_t_timeout', opId);
      await expectRefusedTestRun('run_t_timeout', opId, `refused by the test-runner: test_timeout_s: 99999 is over the limit of 1800 s set by ${POLICY} (sandbox.max_timeout_s)`);
    });

    it('refuses a sandbox that is not a sandbox setting at all, naming the field', async () => {
      const opId = await queuedTestRun('run_t_garbage', { runner: 'process', image: 'x' });
      await service().runTests('run_t_garbage', opId);
      const op = await opRow(opId);
      expect(op.status).toBe('failed');
      expect(op.error).toBe('refused by the test-runner: sandbox: image, memory_mb, cpus and pids apply to the docker runner only; sandbox.runner is process');
    });
  });

  describe("the run's workspace is the test-runner's own, whatever the row says", () => {
    it('refuses a workspace_path elsewhere for tests and reads, and leaves that directory as it was', async () => {
      const before = statSync(outside);
      const opId = await queuedTestRun('run_ws_elsewhere', { runner: 'docker' }, { workspace: outside });
      await service().runTests('run_ws_elsewhere', opId);
      const expected = `Refusing workspace path ${JSON.stringify(outside)}: is not this run's workspace (${path.join(root, 'run_ws_elsewhere', 'workspace')}); the test-runner works in no other directory`;
      await expectRefusedTestRun('run_ws_elsewhere', opId, expected);

      const readId = 'run_ws_elsewhere-r1';
      await ds.getRepository(WorkspaceOpEntity).insert({ id: readId, runId: 'run_ws_elsewhere', kind: 'read', status: 'queued', result: { paths: ['secret.txt'] } } as never);
      await service().read('run_ws_elsewhere', readId);
      const read = await opRow(readId);
      expect(read.status).toBe('failed');
      expect(read.error).toBe(expected);
      expect(JSON.stringify(read.result)).not.toContain('not for the sandbox');

      const after = statSync(outside);
      expect({ mode: after.mode, gid: after.gid }).toEqual({ mode: before.mode, gid: before.gid });
    });
  });

  describe('what the engine itself refuses', () => {
    it('is a failed test run carrying the engine words, not a run left in TEST', async () => {
      // Past the policy (the run asks for nothing special), then a runner that asks the engine
      // for more CPUs than it has: what a policy check that missed something would let through.
      const overAsking: TestRunnerChoice = {
        defaultImage: IMAGE,
        engineCpus: () => runners.engineCpus(),
        for: () => new DockerTestRunner({ endpoint: dockerEndpoint(process.env.DOCKER_HOST), image: IMAGE, limits: { cpus: engineCpus + 2 } }),
      };
      const opId = await queuedTestRun('run_engine_400', { runner: 'docker' });
      await new WorkspaceOpsService(ds, producer, root, overAsking, policy).runTests('run_engine_400', opId);
      const op = await opRow(opId);
      expect(op.status).toBe('failed');
      expect(op.error).toMatch(
        new RegExp(`^the Docker engine refused to create the sandbox container \\(HTTP 400\\): .*only ${engineCpus} CPUs available`),
      );
      expect(reported).toContainEqual({ name: 'tests.done', payload: { runId: 'run_engine_400', opId } });
    });
  });
});
