import { UnrecoverableError } from 'bullmq';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { WorkspaceOpRowError } from '@roundtable/contracts';
import { RunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import { isPermanentJobError } from '@roundtable/queues';
import type { OrchestratorStepService } from './orchestrator-step.service';
import { demoConfig, insertProject, orchestratorTestInfra, type OrchestratorTestInfra } from './orchestrator-test.fixture';

jest.setTimeout(30_000);

const RUN_ID = 'run_perm000001';

/**
 * What no retry can fix fails the job at once (UnrecoverableError, or an error the typed worker
 * turns into one: isPermanentJobError), and leaves nothing behind: the step's transaction rolls
 * back, so the inbox does not record the event as applied.
 */
describe('permanent failures of an orchestrator step', () => {
  let infra: OrchestratorTestInfra;
  let ds: DataSource;
  let steps: OrchestratorStepService;

  beforeAll(async () => {
    infra = await orchestratorTestInfra('rt_int_perm', 2);
    ({ ds, steps } = infra);
    const config = demoConfig();
    await insertProject(ds, 'prj_perm', 'p', config);
    await ds
      .getRepository(RunEntity)
      .insert({ id: RUN_ID, projectId: 'prj_perm', workflow: 'build', status: 'running', stage: 'TEST', config } as QueryDeepPartialEntity<RunEntity>);
  });
  afterAll(async () => {
    await infra?.close();
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
