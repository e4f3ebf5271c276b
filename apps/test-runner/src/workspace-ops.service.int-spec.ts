import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import { loadProjectConfig, OperatorPolicy, readOperatorPolicy } from '@roundtable/contracts';
import { createDataSource, createTestDatabase, ProjectEntity, RunEntity, TestDatabase, WorkspaceOpEntity } from '@roundtable/persistence';
import type { JobProducer } from '@roundtable/queues';
import { prepareEmptyWorkspace, writeFileChanges } from '@roundtable/sandbox';
import { SandboxRunners } from './sandbox-runners';
import { PROCESS_RUNNER_NOTICE, WorkspaceOpsService } from './workspace-ops.service';

/** Real Postgres for the op rows, real Docker for the default runner. */
jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '../../..');
const IMAGE = process.env.SANDBOX_IMAGE ?? 'roundtable/sandbox:latest';
const DEMO_DIR = path.join(REPO, 'examples/dd-demo');
/** The test suite's policy (test/fixtures/policy/test-policy.yaml, through jest's setup). */
const { policy } = readOperatorPolicy();
const demoConfig = () => loadProjectConfig(readFileSync(path.join(DEMO_DIR, 'project.yaml'), 'utf8'), { env: {}, baseDir: DEMO_DIR });

describe('WorkspaceOpsService.runTests: the runner comes from the run config', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let root: string;
  const reported: { name: string; payload: unknown }[] = [];
  const producer = { add: async (name: string, payload: unknown) => void reported.push({ name, payload }) } as unknown as JobProducer;

  beforeAll(async () => {
    execFileSync('bash', [path.join(REPO, 'scripts/build-sandbox-image.sh')], { env: { ...process.env, SANDBOX_IMAGE: IMAGE }, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 2 });
    await ds.initialize();
    root = await mkdtemp(path.join(tmpdir(), 'rt-ops-'));
    await ds.getRepository(ProjectEntity).insert({ id: 'proj1', name: 'dd-demo', objective: 'o', requirements: [], config: {} } as never);
  }, 15 * 60_000);

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  /** A run with one passing pytest file in its workspace and a queued tests op. */
  async function queuedTestRun(runId: string, sandbox: unknown): Promise<string> {
    const config = { ...demoConfig(), ...(sandbox === undefined ? {} : { sandbox }) } as Record<string, unknown>;
    if (sandbox === undefined) delete config.sandbox; // a run stored before the setting existed
    const ws = await prepareEmptyWorkspace(root, runId);
    await writeFileChanges(ws, [{ path: 'test_ok.py', content: 'def test_ok():\n    assert 1 + 1 == 2\n' }]);
    await ds.getRepository(RunEntity).insert({ id: runId, projectId: 'proj1', status: 'running', stage: 'TEST', config, workspacePath: ws } as never);
    const opId = `${runId}-op1`;
    await ds.getRepository(WorkspaceOpEntity).insert({
      id: opId,
      runId,
      kind: 'tests',
      status: 'queued',
      result: { command: 'python -m pytest -q', timeoutS: 60, testLabel: 'T1' },
    } as never);
    return opId;
  }

  const opRow = (opId: string) => ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ id: opId });

  it('runs in the Docker sandbox by default and records runner "docker"', async () => {
    const opId = await queuedTestRun('run_sbx_default', undefined);
    await new WorkspaceOpsService(ds, producer, root, new SandboxRunners({ image: IMAGE }), policy).runTests('run_sbx_default', opId);
    const op = await opRow(opId);
    expect(op.status).toBe('done');
    expect(op.result).toMatchObject({ runner: 'docker', exit_code: 0, passed: 1, failed: 0, timed_out: false, oom_killed: false, testLabel: 'T1' });
    expect(String(op.result?.output_tail)).not.toContain('containment without a sandbox');
    expect(reported).toContainEqual({ name: 'tests.done', payload: { runId: 'run_sbx_default', opId } });
  });

  it('honours the image and limits of sandbox: { runner: docker, ... }', async () => {
    const opId = await queuedTestRun('run_sbx_limits', { runner: 'docker', image: 'roundtable/not-built:nope', memory_mb: 128 });
    // The image must be one the policy lists for the run to get as far as the engine.
    const listing = OperatorPolicy.parse({ ...policy, sandbox: { ...policy.sandbox, images: [...policy.sandbox.images, 'roundtable/not-built:nope'] } });
    await new WorkspaceOpsService(ds, producer, root, new SandboxRunners({ image: IMAGE }), listing).runTests('run_sbx_limits', opId);
    const op = await opRow(opId);
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/sandbox image roundtable\/not-built:nope is not on the Docker engine/);
  });

  it('runs as a plain process only when the config says sandbox: process, and says so in the output', async () => {
    const opId = await queuedTestRun('run_sbx_process', { runner: 'process' });
    await new WorkspaceOpsService(ds, producer, root, new SandboxRunners({ image: IMAGE }), policy).runTests('run_sbx_process', opId);
    const op = await opRow(opId);
    expect(op.status).toBe('done');
    expect(op.result).toMatchObject({ runner: 'process', exit_code: 0, passed: 1 });
    expect(String(op.result?.output_tail).trimEnd().endsWith(PROCESS_RUNNER_NOTICE)).toBe(true);
    expect(PROCESS_RUNNER_NOTICE).toContain('containment without a sandbox');
  });

  it('records an unreachable Docker engine as the op failure, with the way out, instead of crashing or falling back', async () => {
    const opId = await queuedTestRun('run_sbx_nodocker', { runner: 'docker' });
    const runners = new SandboxRunners({ image: IMAGE, dockerHost: `unix://${root}/no-docker.sock` });
    await new WorkspaceOpsService(ds, producer, root, runners, policy).runTests('run_sbx_nodocker', opId);
    const op = await opRow(opId);
    expect(op.status).toBe('failed');
    expect(op.error).toBe(
      `Docker engine unreachable at unix://${root}/no-docker.sock (ENOENT): start it (scripts/ensure-docker.sh) or set sandbox.runner: process to run without a sandbox`,
    );
    expect(op.result).toMatchObject({ command: 'python -m pytest -q' }); // untouched: nothing ran
    expect(reported).toContainEqual({ name: 'tests.done', payload: { runId: 'run_sbx_nodocker', opId } });
  });
});
