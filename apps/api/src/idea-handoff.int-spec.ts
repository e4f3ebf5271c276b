import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readOperatorPolicy, RunDetail } from '@roundtable/contracts';
import { ApiHarness, startApi } from './api-test-harness';

jest.setTimeout(30_000);

/**
 * Handoff at the api (issue 23): a done panel's GO becomes a build run whose objective and
 * requirements come from the moderator's synthesis and the version it scored, recorded on the row
 * (handed_off_from), shown on GET and listed by the idea; the build's report links back. A NO-GO,
 * a panel not done or not on the idea, a bad build part and a read token are refused, and nothing
 * is written. The panels here are posted, then given a moderator by hand (the orchestrator does
 * not run in this tier).
 */
const TOKENS = { writer: 'w'.repeat(24), reader: 'r'.repeat(24) };
const PANEL_DIR = join(__dirname, '../../../examples/panel-demo');
const DD_DIR = join(__dirname, '../../../examples/dd-demo');
let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ API_TOKENS: [{ name: 'writer', token: TOKENS.writer, role: 'write' }, { name: 'reader', token: TOKENS.reader, role: 'read' }] }, { policy: readOperatorPolicy().policy });
});
afterAll(async () => {
  await api?.close();
});

async function call(method: 'GET' | 'POST', path: string, body?: unknown, token = TOKENS.writer) {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the reply's fields it checks
  return { status: res.status, location: res.headers.get('location'), json: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null) as any, text };
}

const WORKSHEET = {
  title: 'Swapboard',
  problem: 'Nurses arrange shift swaps in WhatsApp and wait two days for a paper approval.',
  target_user: 'ward nurses and ward managers in NHS hospital trusts',
  solution: 'A phone app where nurses post and claim shifts and the manager approves with one tap.',
  assumptions: ['ward managers will approve swaps in an app'],
  open_risks: ['the roster vendor may not open its API'],
  no_evidence_yet: true,
};

/** The dd-demo's project file without its objective and requirements: the build part of a handoff. */
function buildPart(): Record<string, unknown> {
  const cfg = parseYaml(readFileSync(join(DD_DIR, 'project.yaml'), 'utf8')) as Record<string, unknown> & { providers: { replay: { cassette: string } } };
  cfg.providers.replay.cassette = join(DD_DIR, cfg.providers.replay.cassette);
  delete cfg.objective;
  delete cfg.requirements;
  return cfg;
}

const synthesis = (recommendation: string) => ({
  overall_recommendation: recommendation,
  confidence: 0.7,
  top_strengths: ['real pain'],
  top_risks: ['the roster vendor closes its API.'],
  top_problems: ['managers approve on paper'],
  biggest_disagreement: 'vc and customer on demand',
  recommended_experiment: 'one ward pilot for four weeks',
});

/** A panel posted on the idea's version, then ended by hand with this moderator (status done unless said). */
async function panelOn(id: string, version: number, recommendation: string, status = 'done'): Promise<string> {
  const cfg = parseYaml(readFileSync(join(PANEL_DIR, 'project.yaml'), 'utf8')) as Record<string, unknown> & { providers: { replay: { cassette: string } } };
  cfg.providers.replay.cassette = join(PANEL_DIR, cfg.providers.replay.cassette);
  delete cfg.idea;
  const posted = await call('POST', '/v1/runs', { ...cfg, idea_ref: { id, version } });
  expect(posted.status).toBe(202);
  const runId = posted.json.id as string;
  const moderator = { id: `${runId}-M1`, label: 'M1', callId: `${runId}-call-M1`, partial: false, body: synthesis(recommendation) };
  await api.ds.query(`UPDATE runs SET status = $2, stage = 'DONE', finished_at = now(), workflow_state = $3 WHERE id = $1`, [runId, status, JSON.stringify({ moderator, verdicts: [], revotes: [] })]);
  return runId;
}

const counts = async () => {
  const [row] = await api.ds.query(`SELECT (SELECT count(*) FROM runs)::int AS runs, (SELECT count(*) FROM outbox)::int AS outbox`);
  return row as { runs: number; outbox: number };
};

describe('POST /v1/ideas/:id/handoff', () => {
  it("hands a GO on as a build: objective and requirements from the synthesis, the source on the row, GET, the idea's list and the report", async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    const panel = await panelOn(id, 1, 'GO');
    // A later version the panel did not score: the handoff reads the version it scored.
    await call('POST', `/v1/ideas/${id}/versions`, { solution: 'A web page.' });

    const handed = await call('POST', `/v1/ideas/${id}/handoff`, { build: buildPart() });
    expect(handed.status).toBe(201);
    const runId = handed.json.id as string;
    expect(handed.location).toBe(`/v1/runs/${runId}`);
    const source = { idea_id: id, version: 1, panel_run_id: panel, recommendation: 'GO' };
    expect(handed.json).toMatchObject({ status: 'queued', handed_off_from: source });
    expect(handed.json.objective).toBe(
      'Swapboard: A phone app where nurses post and claim shifts and the manager approves with one tap — for ward nurses and ward managers in NHS hospital trusts, who nurses arrange shift swaps in WhatsApp and wait two days for a paper approval.',
    );
    expect(handed.json.requirements).toEqual(["Address the panel's problem: managers approve on paper", "Mitigate the panel's risk: the roster vendor closes its API"]);

    const detail = await call('GET', `/v1/runs/${runId}`, undefined, TOKENS.reader);
    expect(RunDetail.parse(detail.json)).toMatchObject({ status: 'queued', handed_off_from: source, inputs: { objective: handed.json.objective, requirements: handed.json.requirements } });
    const [row] = await api.ds.query(`SELECT submitted_by, config, handed_off_from, idea_id FROM runs WHERE id = $1`, [runId]);
    // The build part's fields pass through as submitted.
    expect(row).toMatchObject({ submitted_by: 'writer', handed_off_from: source, idea_id: null, config: { project: 'dd-demo', test_command: 'python -m pytest -q', budget: { max_calls: 16 } } });

    const idea = await call('GET', `/v1/ideas/${id}`, undefined, TOKENS.reader);
    expect(idea.json.handoffs).toEqual([{ run_id: runId, status: 'queued', created_at: expect.any(String), version: 1, panel_run_id: panel, recommendation: 'GO' }]);
    const report = await call('GET', `/v1/runs/${runId}/report`, undefined, TOKENS.reader);
    expect(report.status).toBe(200);
    expect(report.text).toContain(`Handed on from idea ${id} version 1, panel ${panel} (GO)`);
    // A build submitted as usual shows none, and its report no such line.
    const plain = (await call('POST', '/v1/runs', { ...buildPart(), objective: 'x', requirements: [] })).json.id as string;
    expect((await call('GET', `/v1/runs/${plain}`, undefined, TOKENS.reader)).json.handed_off_from).toBeNull();
    expect((await call('GET', `/v1/runs/${plain}/report`, undefined, TOKENS.reader)).text).not.toContain('Handed on from');
  });

  it("an ITERATE hands on its recommended experiment; the default panel is the idea's latest done one; a named panel must be this idea's", async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    await panelOn(id, 1, 'GO');
    const iterate = await panelOn(id, 1, 'ITERATE');
    await panelOn(id, 1, 'GO', 'running');
    const { project: _named, ...unnamed } = buildPart();
    const handed = await call('POST', `/v1/ideas/${id}/handoff`, { build: unnamed });
    expect(handed.status).toBe(201);
    // A build part that names no project is named after the idea.
    expect((await api.ds.query(`SELECT config FROM runs WHERE id = $1`, [handed.json.id]))[0].config.project).toBe(id);
    expect(handed.json.handed_off_from).toMatchObject({ panel_run_id: iterate, recommendation: 'ITERATE' });
    expect(handed.json.objective).toBe('Build the smallest thing that runs the panel\'s recommended experiment for "Swapboard": one ward pilot for four weeks.');

    const other = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    const before = await counts();
    const notOurs = await call('POST', `/v1/ideas/${other}/handoff`, { panel_run_id: iterate, build: buildPart() });
    expect(notOurs).toMatchObject({ status: 400, json: { error: 'invalid_handoff_request', issues: [{ path: 'panel_run_id', message: `run ${iterate} is not a panel on idea ${other}` }] } });
    expect(await call('POST', `/v1/ideas/${other}/handoff`, { build: buildPart() })).toMatchObject({ status: 409, json: { error: 'no_done_panel' } });
    expect((await call('POST', `/v1/ideas/idea_nonexistent/handoff`, { build: buildPart() })).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it('refuses a NO-GO, a panel not done and one with no full synthesis with 409 saying why, and writes nothing', async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    const nogo = await panelOn(id, 1, 'NO-GO');
    const running = await panelOn(id, 1, 'GO', 'running');
    const partial = await panelOn(id, 1, 'GO');
    await api.ds.query(`UPDATE runs SET workflow_state = jsonb_set(workflow_state, '{moderator,partial}', 'true') WHERE id = $1`, [partial]);
    const none = await panelOn(id, 1, 'GO');
    await api.ds.query(`UPDATE runs SET workflow_state = '{"moderator": null}' WHERE id = $1`, [none]);
    const before = await counts();
    const refused = await call('POST', `/v1/ideas/${id}/handoff`, { panel_run_id: nogo, build: buildPart() });
    expect(refused).toMatchObject({ status: 409, json: { error: 'handoff_refused', recommendation: 'NO-GO' } });
    expect(refused.json.message).toContain(`panel ${nogo} said NO-GO on version 1: a NO-GO is not handed on`);
    const notDone = await call('POST', `/v1/ideas/${id}/handoff`, { panel_run_id: running, build: buildPart() });
    expect(notDone).toMatchObject({ status: 409, json: { error: 'run_not_done', status: 'running' } });
    // A done panel whose moderator wrote only a partial synthesis, or none, has no verdict to hand on.
    for (const [panel, why] of [[partial, 'only a partial synthesis'], [none, 'no moderator synthesis']]) {
      const refusal = await call('POST', `/v1/ideas/${id}/handoff`, { panel_run_id: panel, build: buildPart() });
      expect(refusal).toMatchObject({ status: 409, json: { error: 'no_synthesis' } });
      expect(refusal.json.message).toContain(`panel run ${panel} has ${why}`);
    }
    expect(await counts()).toEqual(before);
    expect((await call('GET', `/v1/ideas/${id}`, undefined, TOKENS.reader)).json.handoffs).toEqual([]);
  });

  it('a bad build part is a 400 naming the field under build., and no run is made', async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    const panel = await panelOn(id, 1, 'GO');
    const before = await counts();
    const part = buildPart() as { agents: Record<string, { provider: string }> };
    part.agents.critic.provider = 'nowhere';
    const bad = await call('POST', `/v1/ideas/${id}/handoff`, { panel_run_id: panel, build: part });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_project_config');
    expect(bad.json.issues.map((i: { path: string }) => i.path)).toContain('build.agents.critic.provider');
    expect(bad.json.message).toContain('build.agents.critic.provider');

    const own = await call('POST', `/v1/ideas/${id}/handoff`, { build: { ...buildPart(), objective: 'mine', workflow: 'panel' } });
    expect(own).toMatchObject({ status: 400, json: { error: 'invalid_handoff_request' } });
    expect(own.json.issues.map((i: { path: string }) => i.path)).toEqual(['build.objective', 'build.workflow']);
    expect(await call('POST', `/v1/ideas/${id}/handoff`, { build: 'providers: {}' })).toMatchObject({ status: 400, json: { issues: [{ path: 'build' }] } });
    expect(await counts()).toEqual(before);
  });

  it('a read token may not hand on (403), and nothing is written', async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    await panelOn(id, 1, 'GO');
    const before = await counts();
    expect(await call('POST', `/v1/ideas/${id}/handoff`, { build: buildPart() }, TOKENS.reader)).toMatchObject({ status: 403, json: { error: 'forbidden' } });
    expect(await counts()).toEqual(before);
  });
});
