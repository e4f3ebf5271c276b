import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UnrecoverableError } from 'bullmq';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Redis } from 'ioredis';
import { loadProjectConfig, WorkspaceOpRowError } from '@roundtable/contracts';
import { OutboxDispatcher, RunEventPublisher } from '@roundtable/events';
import { createDataSource, createTestDatabase, ProjectEntity, RunEntity, TestDatabase, WorkspaceOpEntity } from '@roundtable/persistence';
import { createRedisConnection, isPermanentJobError, JobProducer } from '@roundtable/queues';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL } from '@roundtable/testing';
import { OrchestratorStepService } from './orchestrator-step.service';
import { loadPromptTemplates } from './prompt-templates';

jest.setTimeout(30_000);

const REPO = path.resolve(__dirname, '../../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const RUN_ID = 'run_perm000001';

/**
 * What no retry can fix fails the job at once (UnrecoverableError, or an error the typed worker
 * turns into one: isPermanentJobError), and leaves nothing behind: the step's transaction rolls
 * back, so the inbox does not record the event as applied.
 */
describe('permanent failures of an orchestrator step', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let redis: Redis;
  let prefix: string;
  let producer: JobProducer;
  let steps: OrchestratorStepService;

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 2 });
    await ds.initialize();
    redis = createRedisConnection(TEST_REDIS_URL);
    prefix = randomQueuePrefix('rt_int_perm');
    producer = new JobProducer(redis, prefix);
    steps = new OrchestratorStepService(ds, new OutboxDispatcher(ds, producer), new RunEventPublisher(redis, prefix), loadPromptTemplates(path.join(REPO, 'prompts')));
    const config = loadProjectConfig(readFileSync(DEMO, 'utf8'), { env: process.env, baseDir: path.dirname(DEMO) }) as unknown as Record<string, unknown>;
    await ds.getRepository(ProjectEntity).insert({ id: 'prj_perm', name: 'p', objective: 'o', requirements: [], config } as QueryDeepPartialEntity<ProjectEntity>);
    await ds
      .getRepository(RunEntity)
      .insert({ id: RUN_ID, projectId: 'prj_perm', workflow: 'build', status: 'running', stage: 'TEST', config } as QueryDeepPartialEntity<RunEntity>);
  });
  afterAll(async () => {
    await producer?.close();
    if (redis) {
      await deleteRedisPrefix(redis, prefix);
      redis.disconnect();
    }
    await ds?.destroy();
    await db?.drop();
  });

  const applied = async () => (await ds.query(`SELECT event_key FROM applied_events WHERE run_id = $1`, [RUN_ID])).map((r: { event_key: string }) => r.event_key);

  it('a run that does not exist', async () => {
    const attempt = steps.apply('run.start', { runId: 'run_nowhere' });
    await expect(attempt).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(attempt).rejects.toThrow('run run_nowhere does not exist');
  });

  it('an agent.done for a call that does not exist', async () => {
    const attempt = steps.apply('agent.done', { runId: RUN_ID, callId: 'call_nowhere' });
    await expect(attempt).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(attempt).rejects.toThrow(`agent call call_nowhere of run ${RUN_ID} does not exist`);
    expect(await applied()).toEqual([]);
  });

  it('a finished test op whose result is not a test run, named by op and field', async () => {
    await ds.getRepository(WorkspaceOpEntity).insert({
      id: 'op_bad',
      runId: RUN_ID,
      kind: 'tests',
      status: 'done',
      result: { command: 'pytest', timeoutS: 60, testLabel: 'T1', exit_code: 0, passed: 'all', failed: 0, errors: 0, duration_s: 1, timed_out: false, output_artifact_id: null, output_tail: '', runner: 'docker' },
    } as never);
    const attempt = steps.apply('tests.done', { runId: RUN_ID, opId: 'op_bad' });
    await expect(attempt).rejects.toBeInstanceOf(WorkspaceOpRowError);
    await expect(attempt).rejects.toThrow(new WorkspaceOpRowError('op_bad', 'tests', 'result.passed', 'Invalid input: expected number, received string'));
    expect(isPermanentJobError(await attempt.catch((e) => e))).toBe(true);
    expect(await applied()).toEqual([]);
  });
});
