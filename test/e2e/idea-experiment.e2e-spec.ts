import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExperimentDetail } from '@roundtable/contracts';
import { getJson, postJson, startPipeline, waitFor, waitForTerminal, type Pipeline } from '@roundtable/testing';
import { panelOnVersion, SWAPBOARD_WORKSHEET } from './support/idea-worksheets';
import { backtestRepo, headOf } from './support/backtest-repo';

jest.setTimeout(240_000);

const REPO = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(REPO, 'examples/experiment-backtest');
const PROPOSER_CASSETTE = path.join(REPO, 'test/fixtures/idea-experiment/proposer.cassette.yaml');
const PASS_CASSETTE = path.join(EXAMPLE, 'cassette-pass.yaml');

type Evidence = { id: string; claim: string; source: string; kind: string; logged_by?: string };

/**
 * An idea's recommended experiment, end to end (issue 24), every service its own process and the
 * method in the Docker sandbox: a panel on the Swapboard worksheet ends (the panel demo's
 * cassette), POST /v1/ideas/:id/experiment drafts its recommended experiment, the proposer's
 * draft (the preregistration of examples/experiment-backtest/experiment-pass.yaml, from a
 * cassette of its own) waits at the "preregistration" gate, a person approves it, it is locked at
 * the repository's HEAD, run, read and reviewed, decided PASS by code, and the decision is logged
 * to the idea's evidence ledger as an experiment_result entry. The suite's operator policy
 * allows cassettes and repositories from this checkout and the temporary directory.
 */
describe("an idea's recommended experiment: drafted, approved at its gate, run, and logged to the idea's ledger (separate processes, sandbox)", () => {
  let pipeline: Pipeline;
  let tmp: string;
  let repo: string;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-idea-experiment-'));
    repo = path.join(tmp, 'backtest');
    backtestRepo(repo);
    pipeline = await startPipeline({ providerQueues: 'replay,replay_x,replay_a,replay_b' });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  const statusOf = async (id: string) => (await getJson<{ status: string; stage: string; verdict: string | null }>(pipeline.api, `/v1/runs/${id}`)).body;
  const untilStatus = (id: string, status: string, ms = 90_000) =>
    waitFor(`run ${id} to be ${status}`, async () => ((await statusOf(id)).status === status ? statusOf(id) : undefined), ms, 100).catch((e: Error) => {
      throw new Error(`${e.message}\n${pipeline.logs().slice(-4000)}`);
    });

  it('drafts the panel\'s recommended experiment, waits at the gate, runs once approved, decides PASS and logs it to the ledger', async () => {
    const head = headOf(repo);
    const created = await postJson<{ id: string }>(pipeline.api, '/v1/ideas', SWAPBOARD_WORKSHEET);
    expect(created.status).toBe(201);
    const ideaId = created.body.id;
    const panel = await postJson<{ id: string }>(pipeline.api, '/v1/runs', panelOnVersion(ideaId, 1));
    expect(panel.status).toBe(202);
    expect(await waitForTerminal(pipeline, panel.body.id, 90_000)).toMatchObject({ status: 'done', workflow: 'panel' });

    const drafted = await postJson<{ experiment_id: string; run_id: string }>(pipeline.api, `/v1/ideas/${ideaId}/experiment`, {
      repo,
      domain: 'trading',
      providers: {
        replay_x: { type: 'replay', cassette: PROPOSER_CASSETTE },
        replay_a: { type: 'replay', cassette: PASS_CASSETTE },
        replay_b: { type: 'replay', cassette: PASS_CASSETTE },
      },
      proposer: { provider: 'replay_x', model: 'claude-sonnet-4-5' },
      interpreter: { provider: 'replay_a', model: 'claude-sonnet-4-5' },
      critic: { provider: 'replay_b', model: 'gpt-5' },
    });
    expect([drafted.status, drafted.status === 201 ? null : drafted.body]).toEqual([201, null]);
    expect(drafted.body).toEqual({ experiment_id: expect.any(String), run_id: expect.any(String) });
    const { experiment_id: experimentId, run_id: runId } = drafted.body;

    // The draft waits for a person at its gate; nothing has run.
    expect(await untilStatus(runId, 'awaiting_approval')).toMatchObject({ stage: 'LOCK' });
    const draft = ExperimentDetail.parse((await getJson(pipeline.api, `/v1/experiments/${experimentId}`)).body);
    expect(draft).toMatchObject({ status: 'draft', preregistration: null, commit: head, source: { idea_id: ideaId, panel_run_id: panel.body.id }, run_id: runId });
    expect(await pipeline.sql(`SELECT 1 FROM workspace_ops WHERE run_id = $1`, [runId])).toEqual([]);

    expect((await postJson(pipeline.api, `/v1/runs/${runId}/approvals`, { gate: 'preregistration', decision: 'approve' })).status).toBe(202);
    expect(await untilStatus(runId, 'done', 200_000)).toMatchObject({ stage: 'DONE', verdict: 'PASS' });

    const decided = ExperimentDetail.parse((await getJson(pipeline.api, `/v1/experiments/${experimentId}`)).body);
    expect(decided).toMatchObject({
      status: 'decided',
      decision: 'PASS',
      commit: head,
      source: { idea_id: ideaId, panel_run_id: panel.body.id },
      preregistration: { title: 'Moving-average crossover on a trending series, out of sample', domain: 'trading' },
      result: { commit: head, metrics: { sharpe_oos: 2.9641, n_trades: 7 } },
    });
    const [op] = await pipeline.sql<{ runner: string; commit: string }>(`SELECT result->>'runner' AS runner, result->>'commit' AS commit FROM workspace_ops WHERE run_id = $1 AND kind = 'experiment'`, [runId]);
    expect(op).toEqual({ runner: 'docker', commit: head });
    const calls = await pipeline.sql<{ role: string; label: string; provider: string }>(`SELECT role, label, provider FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [runId]);
    expect(calls).toEqual([
      { role: 'proposer', label: 'PR1', provider: 'replay_x' },
      { role: 'interpreter', label: 'IN1', provider: 'replay_a' },
      { role: 'critic', label: 'CR1', provider: 'replay_b' },
    ]);

    // The decision is in the idea's ledger, numbered as a person's entry would be, naming the experiment.
    const ledger = await waitFor('the experiment_result entry', async () => {
      const { body } = await getJson<Evidence[]>(pipeline.api, `/v1/ideas/${ideaId}/evidence`);
      return body.some((e) => e.kind === 'experiment_result') ? body : undefined;
    });
    const entries = ledger.filter((e) => e.kind === 'experiment_result');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: 'E1', kind: 'experiment_result' });
    expect(entries[0].claim).toContain(`Experiment ${experimentId}`);
    expect(entries[0].claim).toContain('decided PASS');
    expect(entries[0].claim).toContain('sharpe_oos=2.9641');
    expect(entries[0].source).toBe(`experiment ${experimentId} (run ${runId})`);
  });
});
