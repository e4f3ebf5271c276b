import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExperimentDetail } from '@roundtable/contracts';
import { preregistrationHash } from '@roundtable/persistence';
import { getJson, postJson, projectConfigFrom, startPipeline, waitForTerminal, type Pipeline } from '@roundtable/testing';
import { backtestRepo, headOf } from './support/backtest-repo';

jest.setTimeout(240_000);

const EXAMPLE = path.resolve(__dirname, '../../examples/experiment-backtest');

/**
 * Experiments end to end (issue 24), every service its own process and the method in the Docker
 * sandbox: the example's real backtest computes real metrics from its price series, and the
 * decision is code's. A copy of the example is a git repository the preregistration is pinned to.
 */
describe('experiments: preregister → lock → run → interpret (separate processes, sandbox)', () => {
  let pipeline: Pipeline;
  let tmp: string;
  let repo: string;

  const fileOf = (name: 'kill' | 'pass') => projectConfigFrom(path.join(EXAMPLE, `experiment-${name}.yaml`), { repo });
  const experiment = async (id: string) => ExperimentDetail.parse((await getJson(pipeline.api, `/v1/experiments/${id}`)).body);

  /** Preregistered, run, followed to its end: the run and the experiment as they ended. */
  async function preregisterAndRun(name: 'kill' | 'pass') {
    const created = await postJson<{ id: string }>(pipeline.api, '/v1/experiments', fileOf(name));
    expect(created.status).toBe(201);
    const started = await postJson<{ run_id: string }>(pipeline.api, `/v1/experiments/${created.body.id}/run`);
    expect(started.status).toBe(202);
    const run = await waitForTerminal(pipeline, started.body.run_id, 200_000);
    return { id: created.body.id, runId: started.body.run_id, run, detail: await experiment(created.body.id) };
  }

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-experiment-'));
    repo = path.join(tmp, 'backtest');
    backtestRepo(repo);
    pipeline = await startPipeline({ providerQueues: 'replay_a,replay_b' });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('a random walk: locked at the repository HEAD, run in the sandbox, read, reviewed, and KILLED by code', async () => {
    const head = headOf(repo);
    const { id, runId, run, detail } = await preregisterAndRun('kill');
    expect(run).toMatchObject({ status: 'done', stage: 'DONE', verdict: 'KILL' });
    expect(detail).toMatchObject({ status: 'decided', decision: 'KILL', commit: head, run_id: runId });
    expect(detail.prereg_hash).toBe(preregistrationHash(detail.preregistration));
    // The metrics the backtest really computed, stored with the preregistration's hash.
    expect(detail.result).toMatchObject({ prereg_hash: detail.prereg_hash, commit: head, exit_code: 0, metrics: { sharpe_oos: -0.1608, max_drawdown: -0.1204, total_return_oos: -0.031, n_trades: 11 } });
    expect(detail.interpretation).toMatchObject({ computed: 'KILL', override_request: null, open_question: null, review: { agrees: true } });
    expect(detail.interpretation!.criteria.map((c) => [c.id, c.holds, c.reading?.holds])).toEqual([
      ['S1', false, false],
      ['S2', true, true],
      ['F1', true, true],
      ['F2', false, false],
    ]);
    expect(detail.interpretation!.trading_critique).toMatchObject({ multiple_testing_deflated_sharpe: { n_trials: 9 } });
    // Every call recorded: the interpreter and the critic, each once, on two providers.
    const calls = await pipeline.sql<{ role: string; label: string; provider: string; stage: string }>(`SELECT role, label, provider, stage FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [runId]);
    expect(calls).toEqual([
      { role: 'interpreter', label: 'IN1', provider: 'replay_a', stage: 'INTERPRET' },
      { role: 'critic', label: 'CR1', provider: 'replay_b', stage: 'REVIEW' },
    ]);
    const events = (await pipeline.sql<{ type: string }>(`SELECT type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [runId])).map((e) => e.type);
    expect(events).toEqual(expect.arrayContaining(['method_started', 'method_finished', 'experiment_decided', 'run_completed']));
    const [op] = await pipeline.sql<{ runner: string; request_commit: string }>(`SELECT result->>'runner' AS runner, result->>'commit' AS request_commit FROM workspace_ops WHERE run_id = $1 AND kind = 'experiment'`, [runId]);
    expect(op).toEqual({ runner: 'docker', request_commit: head });
    const report = await fetch(`${pipeline.api}/v1/experiments/${id}/report`).then((r) => r.text());
    expect(report).toContain('KILL');

    // Locked: an edit is refused, naming the field, and nothing changes.
    const edited = await fetch(`${pipeline.api}/v1/experiments/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ preregistration: { ...detail.preregistration, failure_criteria: [{ expr: 'sharpe_oos < -1' }] } }),
    });
    expect(edited.status).toBe(409);
    expect(await edited.json()).toMatchObject({ error: 'experiment_locked', field: 'preregistration.failure_criteria' });
    expect((await experiment(id)).prereg_hash).toBe(detail.prereg_hash);

    // A second run of an experiment that has its result is refused.
    const again = await postJson<{ message: string }>(pipeline.api, `/v1/experiments/${id}/run`);
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already has a result/);
  });

  it('a trending series: the same criteria, PASS', async () => {
    const { run, detail } = await preregisterAndRun('pass');
    expect(run).toMatchObject({ status: 'done', verdict: 'PASS' });
    expect(detail).toMatchObject({ decision: 'PASS', result: { metrics: { sharpe_oos: 2.9641, n_trades: 7 } } });
  });

  it('a preregistration altered in the store after it was locked is refused (the test-runner refuses it too: apps/test-runner experiment-run.int-spec)', async () => {
    const created = await postJson<{ id: string }>(pipeline.api, '/v1/experiments', fileOf('pass'));
    expect(created.status).toBe(201);
    const id = created.body.id;
    await pipeline.sql(`UPDATE experiments SET prereg = jsonb_set(prereg, '{failure_criteria,0,expr}', '"sharpe_oos < -5"') WHERE id = $1`, [id]);
    const refused = await postJson<{ message: string }>(pipeline.api, `/v1/experiments/${id}/run`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/altered/);
    expect((await experiment(id)).result).toBeNull();
  });
});
