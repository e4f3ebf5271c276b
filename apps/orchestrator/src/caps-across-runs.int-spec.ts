import path from 'node:path';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OperatorBudgets } from '@roundtable/contracts';
import { OutboxDispatcher } from '@roundtable/service';
import { AgentCallEntity, RunEntity, runStatement, WorkspaceOpEntity } from '@roundtable/persistence';
import { demoConfig, insertProject, orchestratorTestInfra, type OrchestratorTestInfra } from './orchestrator-test.fixture';
import { OrchestratorStepService } from './orchestrator-step.service';
import { loadPromptTemplates } from './prompt-templates';
import { SCOPE_USAGE, utcDayStart, type ScopeUsageRow } from './sql/scope-usage.sql';

jest.setTimeout(60_000);

const REPO = path.resolve(__dirname, '../../..');

/**
 * Caps across runs (issue 26) at the orchestrator: the scope's figures read from the rows, and
 * two runs of one team racing for the team's last call through real steps on real Postgres.
 */
describe('caps across runs: a team’s and a project’s, checked in the step under the scope’s lock', () => {
  let infra: OrchestratorTestInfra;
  const config = demoConfig();
  const today = utcDayStart(new Date());
  const yesterday = new Date(today.getTime() - 3600_000);

  beforeAll(async () => {
    infra = await orchestratorTestInfra('rt_int_caps', 6);
    await insertProject(infra.ds, 'prj_a', 'alpha-proj', config);
    await insertProject(infra.ds, 'prj_b', 'alpha-proj', config); // another run's project row, the same name
    await insertProject(infra.ds, 'prj_c', 'other-proj', config);
  });
  afterAll(async () => {
    await infra?.close();
  });

  async function insertRun(id: string, projectId: string, team: string, status = 'queued'): Promise<void> {
    await infra.ds
      .getRepository(RunEntity)
      .insert({ id, projectId, team, workflow: 'build', status, stage: 'INIT', config } as QueryDeepPartialEntity<RunEntity>);
  }

  let seq = 0;
  async function insertCall(runId: string, c: { status: string; cost?: number; finishedAt?: Date | null; copiedFrom?: string; reserved?: number }): Promise<string> {
    seq += 1;
    const id = `${runId}-x${seq}`;
    await infra.ds.getRepository(AgentCallEntity).insert({
      id, runId, seq, stage: 'PROPOSE', role: 'proposer', provider: 'replay', model: 'm', status: c.status, promptHash: 'h', messages: [],
      costUsd: c.cost ?? null, finishedAt: c.finishedAt ?? null, copiedFrom: c.copiedFrom ?? null,
    } as QueryDeepPartialEntity<AgentCallEntity>);
    if (c.reserved !== undefined) {
      await infra.ds.query(`INSERT INTO budget_reservations (call_id, run_id, provider, calls, tokens, cost_usd) VALUES ($1, $2, 'replay', 1, 100, $3)`, [id, runId, c.reserved]);
    } else if (c.status === 'completed' || c.status === 'failed') {
      await infra.ds.query(
        `INSERT INTO usage_by_provider (run_id, provider, calls, input_tokens, output_tokens, cost_usd) VALUES ($1, 'replay', 1, 10, 10, $2)
         ON CONFLICT (run_id, provider) DO UPDATE SET calls = usage_by_provider.calls + 1, cost_usd = coalesce(usage_by_provider.cost_usd, 0) + coalesce($2, 0)`,
        [runId, c.copiedFrom ? null : (c.cost ?? null)],
      );
    }
    return id;
  }

  it('SCOPE_USAGE: settled calls by the UTC day they finished, reservations today and in the total; copies and withdrawn calls count nothing', async () => {
    await insertRun('run_su1', 'prj_a', 'alpha', 'running');
    await insertRun('run_su2', 'prj_b', 'alpha', 'cancelled');
    await insertRun('run_su3', 'prj_c', 'beta', 'running');
    await insertCall('run_su1', { status: 'completed', cost: 0.5, finishedAt: yesterday }); // total only
    await insertCall('run_su1', { status: 'completed', cost: 0.25, finishedAt: new Date() });
    await insertCall('run_su1', { status: 'failed', finishedAt: new Date() }); // a failed try counts, unpriced
    await insertCall('run_su1', { status: 'running', reserved: 0.1 }); // in flight
    await insertCall('run_su1', { status: 'completed', cost: 0.04, finishedAt: new Date(), reserved: 0.1 }); // finished, not yet settled: its reservation
    await insertCall('run_su2', { status: 'queued', reserved: 0.3 }); // withdrawn by the cancel: never asked
    await insertCall('run_su2', { status: 'completed', cost: 0.2, finishedAt: new Date(), copiedFrom: 'run_x-c1' }); // a fork's copy
    await insertCall('run_su3', { status: 'completed', cost: 9, finishedAt: new Date() }); // another team, another project

    const read = async (teams: string[], projects: string[], runId = 'run_su1') =>
      (await runStatement(infra.ds, SCOPE_USAGE, runId, teams, projects, today)).rows.map((r: ScopeUsageRow) => ({
        ...r,
        calls_today: Number(r.calls_today),
        usd_today: Number(r.usd_today),
        usd_total: Number(r.usd_total),
      }));
    const alpha = { calls_today: 4, usd_today: 0.45, usd_total: 0.95 };
    expect(await read(['alpha'], ['alpha-proj'])).toEqual([
      { kind: 'teams', name: 'alpha', ...alpha },
      { kind: 'projects', name: 'alpha-proj', ...alpha }, // both project rows named alpha-proj: the same project
    ]);
    expect(await read(['beta', 'gamma'], [])).toEqual([]); // the run's team is not capped
    expect(await read([], ['alpha-proj'], 'run_su3')).toEqual([]);
    expect(await read(['beta'], ['other-proj'], 'run_su3')).toEqual([
      { kind: 'teams', name: 'beta', calls_today: 1, usd_today: 9, usd_total: 9 },
      { kind: 'projects', name: 'other-proj', calls_today: 1, usd_today: 9, usd_total: 9 },
    ]);
  });

  function capped(budgets: unknown): OrchestratorStepService {
    return new OrchestratorStepService(
      infra.ds,
      new OutboxDispatcher(infra.ds, infra.producer),
      infra.publisher,
      loadPromptTemplates(path.join(REPO, 'prompts')),
      null,
      undefined,
      undefined,
      null,
      undefined,
      { budgets: OperatorBudgets.parse(budgets) },
    );
  }

  /** run.start, then the workspace prepared by hand: the step after it asks the proposer. */
  async function startToPropose(steps: OrchestratorStepService, runId: string): Promise<string> {
    await steps.apply('run.start', { runId });
    const prepare = await infra.ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ runId });
    await infra.ds.getRepository(WorkspaceOpEntity).update({ id: prepare.id }, { status: 'done', result: { path: '/tmp/rt-int-ws', tree: [] }, finishedAt: new Date() });
    return prepare.id;
  }

  it('two runs of one team racing for its last call: exactly one gets it, the other halts naming the team cap and closes fact-only', async () => {
    const steps = capped({ teams: { racers: { max_calls_per_day: 1 } } });
    await insertRun('run_race1', 'prj_c', 'racers');
    await insertRun('run_race2', 'prj_c', 'racers');
    const ops = [await startToPropose(steps, 'run_race1'), await startToPropose(steps, 'run_race2')];
    await Promise.all(['run_race1', 'run_race2'].map((runId, i) => steps.apply('workspace.done', { runId, opId: ops[i] })));

    const calls = await infra.ds.query(`SELECT run_id, role FROM agent_calls WHERE run_id IN ('run_race1', 'run_race2')`);
    expect(calls).toHaveLength(1);
    const runs: { id: string; status: string; halt_reason: string | null }[] = await infra.ds.query(
      `SELECT id, status, halt_reason FROM runs WHERE id IN ('run_race1', 'run_race2') ORDER BY id`,
    );
    const loser = runs.find((r) => r.id !== calls[0].run_id)!;
    expect(loser).toMatchObject({ status: 'halted', halt_reason: 'teams.racers.max_calls_per_day reached: 1 of 1 calls used or in flight today (team racers, all runs)' });
    const [close] = await infra.ds.query(`SELECT count(*)::int AS syntheses FROM syntheses WHERE run_id = $1`, [loser.id]);
    expect(close.syntheses).toBe(1); // the fact-only report: no synthesizer call over the team's cap
    expect(runs.find((r) => r.id === calls[0].run_id)).toMatchObject({ status: 'running', halt_reason: null });
  });

  it('a run a team cap halted: a resume with raised caps (even one naming the team\'s) halts again with the reason; once the operator raised the cap, it goes on', async () => {
    const steps = capped({ teams: { resumers: { max_calls_per_day: 1 } } });
    await insertRun('run_res1', 'prj_c', 'resumers');
    await insertRun('run_res2', 'prj_c', 'resumers');
    await steps.apply('workspace.done', { runId: 'run_res1', opId: await startToPropose(steps, 'run_res1') });
    await steps.apply('workspace.done', { runId: 'run_res2', opId: await startToPropose(steps, 'run_res2') });
    const reason = 'teams.resumers.max_calls_per_day reached: 1 of 1 calls used or in flight today (team resumers, all runs)';
    const row = async () => (await infra.ds.query(`SELECT status, halt_reason FROM runs WHERE id = 'run_res2'`))[0];
    expect(await row()).toEqual({ status: 'halted', halt_reason: reason });

    // Written around the api (which refuses a cap across runs by name): the run's own caps rise, the team's do not.
    expect(await steps.apply('run.resume', { runId: 'run_res2', caps: { max_calls: 100, max_calls_per_day: 1000 } }, 'j__run_res2__resume__1')).toBe('applied');
    expect(await row()).toEqual({ status: 'halted', halt_reason: reason });
    const types = async () => (await infra.ds.query(`SELECT type FROM run_events WHERE run_id = 'run_res2' AND type IN ('run_halted', 'run_resumed') ORDER BY sequence`)).map((e: { type: string }) => e.type);
    expect(await types()).toEqual(['run_halted', 'run_resumed', 'run_halted']);

    // The operator raised the cap (the orchestrator restarted with the new policy): the same run goes on.
    const raised = capped({ teams: { resumers: { max_calls_per_day: 2 } } });
    expect(await raised.apply('run.resume', { runId: 'run_res2' }, 'j__run_res2__resume__2')).toBe('applied');
    expect(await row()).toEqual({ status: 'running', halt_reason: null });
    expect(await infra.ds.query(`SELECT role, status FROM agent_calls WHERE run_id = 'run_res2'`)).toEqual([{ role: 'proposer', status: 'queued' }]);
  });

  it('a team the policy does not cap takes no lock and reads nothing more; a project cap binds every team’s runs of that project', async () => {
    const steps = capped({ teams: { racers: { max_calls_per_day: 0 } }, projects: { 'proj-cap': { max_calls_per_day: 1 } } });
    await insertProject(infra.ds, 'prj_cap1', 'proj-cap', config);
    await insertRun('run_free', 'prj_cap1', 'free');
    await insertRun('run_free2', 'prj_cap1', 'free2');
    const op1 = await startToPropose(steps, 'run_free');
    const op2 = await startToPropose(steps, 'run_free2');
    await steps.apply('workspace.done', { runId: 'run_free', opId: op1 });
    await steps.apply('workspace.done', { runId: 'run_free2', opId: op2 });
    const rows: { id: string; status: string; halt_reason: string | null }[] = await infra.ds.query(`SELECT id, status, halt_reason FROM runs WHERE id IN ('run_free', 'run_free2') ORDER BY id`);
    expect(rows).toEqual([
      { id: 'run_free', status: 'running', halt_reason: null },
      { id: 'run_free2', status: 'halted', halt_reason: 'projects.proj-cap.max_calls_per_day reached: 1 of 1 calls used or in flight today (project proj-cap, all runs)' },
    ]);
  });

  it('a step of a capped team waits for the team’s lock (held by another step until its COMMIT)', async () => {
    const steps = capped({ teams: { waiters: { max_calls_per_day: 10 } } });
    await insertRun('run_wait', 'prj_c', 'waiters');
    const op = await startToPropose(steps, 'run_wait');
    const holder = infra.ds.createQueryRunner();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended('roundtable.budgets.teams:' || $1, 0))`, ['waiters']);
      let done = false;
      const step = steps.apply('workspace.done', { runId: 'run_wait', opId: op }).then(() => (done = true));
      await new Promise((r) => setTimeout(r, 400));
      expect(done).toBe(false);
      await holder.query('COMMIT');
      await step;
      expect(done).toBe(true);
      expect(await infra.ds.query(`SELECT role FROM agent_calls WHERE run_id = 'run_wait'`)).toEqual([{ role: 'proposer' }]);
    } finally {
      await holder.release();
    }
  });
});
