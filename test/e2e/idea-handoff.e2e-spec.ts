import path from 'node:path';
import { getJson, Pipeline, postJson, projectConfigFrom, startPipeline, waitForTerminal } from '@roundtable/testing';
import { panelOnVersion, SWAPBOARD_WORKSHEET } from './support/idea-worksheets';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const DD_DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const PANEL_GO = path.join(REPO, 'test/fixtures/idea-handoff/panel-go.cassette.yaml');
const BUILD = path.join(REPO, 'test/fixtures/idea-handoff/build.cassette.yaml');

/**
 * Handoff, end to end (issue 23), the four services as separate processes on the replay provider:
 * a panel on an idea's worksheet version ends GO (the panel demo's cassette with a moderator who
 * says GO), and POST /v1/ideas/:id/handoff turns its synthesis into a build run. The build's
 * cassette guards its proposer's prompt: the objective and requirements must be the ones the
 * handoff made. The build is capped at one call, so it halts after P1; its report still links
 * back to the idea version and the panel.
 */
describe('handoff: a GO panel on an idea version becomes a build run whose report links back', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline();
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  it('hands the GO on: the build is asked the synthesis, shows handed_off_from, is listed by the idea, and its report names the idea version and panel', async () => {
    const created = await postJson<{ id: string }>(pipeline.api, '/v1/ideas', SWAPBOARD_WORKSHEET);
    expect(created.status).toBe(201);
    const id = created.body.id;

    const panel = await postJson<{ id: string }>(pipeline.api, '/v1/runs', panelOnVersion(id, 1, PANEL_GO));
    expect(panel.status).toBe(202);
    expect(await waitForTerminal(pipeline, panel.body.id, 90_000)).toMatchObject({ status: 'done', workflow: 'panel', verdict: 'GO' });

    const build = projectConfigFrom(DD_DEMO, { budget: { max_calls: 1 }, providers: { replay: { type: 'replay', cassette: BUILD } } });
    delete build.objective;
    delete build.requirements;
    const handed = await postJson<{ id: string; handed_off_from: unknown; objective: string; requirements: string[] }>(pipeline.api, `/v1/ideas/${id}/handoff`, { build });
    expect(handed.status).toBe(201);
    const runId = handed.body.id;
    const source = { idea_id: id, version: 1, panel_run_id: panel.body.id, recommendation: 'GO' };
    expect(handed.body.handed_off_from).toEqual(source);
    expect(handed.body.objective).toBe(
      "Swapboard: A phone app where nurses on one ward post the shifts they cannot work and claim each other's; the manager approves with one tap — for ward nurses and ward managers in NHS hospital trusts, who nurses arrange shift swaps in a WhatsApp group per ward and wait for a paper approval.",
    );
    expect(handed.body.requirements).toEqual([
      "Address the panel's problem: no write access to HealthRoster: a nightly CSV import is the only route today (engineer, D12)",
      "Mitigate the panel's risk: RLDatix can add swaps to Employee Online, which nurses already trust (competitor, V5, D15)",
      "Mitigate the panel's risk: the buyer is the workforce office and the sale is slow (vc, V1)",
    ]);

    const run = await waitForTerminal(pipeline, runId, 90_000);
    expect(run).toMatchObject({ workflow: 'build', status: 'halted', handed_off_from: source, inputs: { objective: handed.body.objective, requirements: handed.body.requirements } });
    expect(run.halt_reason).toMatch(/^max_calls reached: 1 of 1/);
    // The proposer's guards held: its prompt carried the objective and requirements the handoff made.
    const calls = await pipeline.sql<{ role: string; status: string; valid: boolean | null; messages: string }>(`SELECT role, status, valid, messages::text AS messages FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [runId]);
    expect(calls.map((c) => [c.role, c.status, c.valid])).toEqual([
      ['proposer', 'completed', true],
      ['synthesizer', 'completed', true],
    ]);
    expect(calls[0].messages).toContain("Address the panel's problem: no write access to HealthRoster");

    const report = await (await fetch(`${pipeline.api}/v1/runs/${runId}/report`)).text();
    expect(report.split('\n').slice(0, 3)).toEqual([
      `# dd-demo — run ${runId}`,
      '',
      `Handed on from idea ${id} version 1, panel ${panel.body.id} (GO): \`roundtable idea show ${id}\`, \`roundtable report ${panel.body.id}\`.`,
    ]);
    expect(report).toMatch(/Halt reason: max_calls reached: 1 of 1/);

    const idea = await getJson<{ handoffs: unknown[] }>(pipeline.api, `/v1/ideas/${id}`);
    expect(idea.body.handoffs).toEqual([{ run_id: runId, status: 'halted', created_at: expect.any(String), version: 1, panel_run_id: panel.body.id, recommendation: 'GO' }]);
  });
});
