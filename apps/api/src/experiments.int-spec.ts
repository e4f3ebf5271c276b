import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ExperimentDetail, ExperimentList, readOperatorPolicy } from '@roundtable/contracts';
import { preregistrationHash } from '@roundtable/persistence';
import { ApiHarness, startApi } from './api-test-harness';

jest.setTimeout(30_000);

/**
 * Experiments at the api (issue 24): a preregistration validated, hashed and locked, pinned to the
 * repository's HEAD; refusals that name the field and write nothing; edits always refused; a run
 * started once (not while one is live, not after a result, not when the stored plan was altered);
 * list, detail and report; and an idea's recommended experiment drafted with its run. The
 * orchestrator does not run in this tier: runs stay queued, and rows are set by hand.
 */
const TOKENS = { writer: 'w'.repeat(24), reader: 'r'.repeat(24) };
const PANEL_DIR = join(__dirname, '../../../examples/panel-demo');
const CASSETTE = join(PANEL_DIR, 'cassette.yaml');
let api: ApiHarness;
let dir: string;
let repo: string;
let head: string;

beforeAll(async () => {
  // The test policy's repo roots hold the system's temporary directory.
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'rt-exp-int-')));
  repo = join(dir, 'strategy');
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'backtest.sh'), 'echo \'{"sharpe_oos": 0.7, "max_dd": 0.1}\'\n');
  execFileSync('git', ['-C', repo, 'add', '.']);
  execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'method']);
  head = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  api = await startApi(
    { API_TOKENS: [{ name: 'writer', token: TOKENS.writer, role: 'write' }, { name: 'reader', token: TOKENS.reader, role: 'read' }] },
    { policy: readOperatorPolicy().policy, servedProviders: ['replay', 'second'] },
  );
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: 'GET' | 'POST' | 'PATCH' | 'PUT', path: string, body?: unknown, token = TOKENS.writer) {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the reply's fields it checks
  return { status: res.status, json: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null) as any, text };
}

const PREREG = {
  title: 'Momentum out of sample',
  hypothesis: 'The 12-1 momentum signal keeps a Sharpe above 0.5 out of sample',
  expected_result: 'sharpe_oos >= 0.5 with a drawdown under 25%',
  method: { description: 'walk-forward backtest', command: 'sh backtest.sh', metrics: ['sharpe_oos', 'max_dd'] },
  success_criteria: [{ expr: 'sharpe_oos >= 0.5' }],
  failure_criteria: [{ expr: 'max_dd > 0.25' }],
  data: 'daily closes 2010-2024',
};

/** The parts of an experiment file that are not its preregistration: what POST /v1/ideas/:id/experiment takes. */
const agents = () => ({
  repo,
  interpreter: { provider: 'replay', model: 'm1' },
  critic: { provider: 'second', model: 'm2' },
  proposer: { provider: 'replay', model: 'm3' },
  providers: { replay: { type: 'replay', cassette: CASSETTE }, second: { type: 'replay', cassette: CASSETTE } },
});
const file = (over: Record<string, unknown> = {}) => {
  const { proposer: _p, ...rest } = agents();
  return { workflow: 'experiment', project: 'backtest', ...rest, preregistration: PREREG, ...over };
};

const counts = async () => {
  const [row] = await api.ds.query(`SELECT (SELECT count(*) FROM experiments)::int AS experiments, (SELECT count(*) FROM projects)::int AS projects, (SELECT count(*) FROM runs)::int AS runs`);
  return row as { experiments: number; projects: number; runs: number };
};

describe('preregistering an experiment', () => {
  it('locks it: 201, the hash of the stored preregistration, the same hash for reordered keys, the commit pinned to HEAD', async () => {
    const made = await call('POST', '/v1/experiments', file());
    expect(made.status).toBe(201);
    const detail = ExperimentDetail.parse(made.json);
    expect(detail).toMatchObject({ status: 'locked', project: 'backtest', title: PREREG.title, commit: head, repo, created_by: 'writer', run_id: null, runs: [] });
    const [row] = await api.ds.query(`SELECT prereg, prereg_hash, locked_at FROM experiments WHERE id = $1`, [detail.id]);
    expect(row.prereg_hash).toBe(preregistrationHash(row.prereg));
    expect(detail.prereg_hash).toBe(row.prereg_hash);
    expect(row.locked_at).not.toBeNull();

    const reordered = Object.fromEntries(Object.entries(PREREG).reverse());
    const again = await call('POST', '/v1/experiments', file({ preregistration: reordered }));
    expect(again.status).toBe(201);
    expect(again.json.prereg_hash).toBe(detail.prereg_hash);
  });

  it('refuses with the field named and nothing written: an unknown metric, the critic on the interpreter provider, a repo outside the roots, not a git repo, an unknown hypothesis', async () => {
    const before = await counts();
    const metric = await call('POST', '/v1/experiments', file({ preregistration: { ...PREREG, success_criteria: [{ expr: 'sharpe_is >= 0.5' }] } }));
    expect(metric.status).toBe(400);
    expect(metric.json.issues.map((i: { path: string }) => i.path)).toEqual(['preregistration.success_criteria.0.expr']);
    expect(metric.json.message).toContain('sharpe_is');

    const critic = await call('POST', '/v1/experiments', file({ critic: { provider: 'replay', model: 'm2' } }));
    expect(critic.status).toBe(400);
    expect(critic.json.issues.map((i: { path: string }) => i.path)).toEqual(['critic.provider']);

    const outside = await call('POST', '/v1/experiments', file({ repo: '/usr' }));
    expect(outside.status).toBe(400);
    expect(outside.json.issues.map((i: { path: string }) => i.path)).toEqual(['repo']);

    const notGit = await call('POST', '/v1/experiments', file({ repo: dir }));
    expect(notGit.status).toBe(400);
    expect(notGit.json.issues).toEqual([{ path: 'repo', message: `experiments pin a commit: ${dir} is not a git repository; git init and commit it first` }]);

    const commit = await call('POST', '/v1/experiments', file({ commit: 'deadbeef' }));
    expect(commit.json.issues.map((i: { path: string }) => i.path)).toEqual(['commit']);

    const hypothesis = await call('POST', '/v1/experiments', file({ hypothesis_id: 'hyp_missing' }));
    expect(hypothesis.status).toBe(400);
    expect(hypothesis.json.issues.map((i: { path: string }) => i.path)).toEqual(['hypothesis_id']);

    expect(await counts()).toEqual(before);
  });

  it('takes nothing the server decides from the file: an experiment id, a source, a sandbox, a timeout over the operator\'s limit are refused, naming the field', async () => {
    const before = await counts();
    // What a write token would smuggle in: another experiment to write into, a build to answer, a sandbox of its own.
    for (const [key, value] of [['experiment_id', 'exp_other'], ['source', { build_run_id: 'run_other', question_id: 'Q1' }], ['sandbox', { runner: 'process' }]] as const) {
      const res = await call('POST', '/v1/experiments', file({ [key]: value }));
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.json.issues)).toContain(key);
    }
    // The method's timeout is held to the sandbox's limit (sandbox.max_timeout_s), here at preregistration, not first at the test-runner.
    const slow = await call('POST', '/v1/experiments', file({ preregistration: { ...PREREG, method: { ...PREREG.method, timeout_s: 3600 } } }));
    expect(slow.status).toBe(400);
    expect(slow.json.issues).toEqual([{ path: 'preregistration.method.timeout_s', message: expect.stringMatching(/^3600 is over the limit of \d+ s set by .*sandbox\.max_timeout_s/) }]);
    expect(await counts()).toEqual(before);
  });

  it('needs a write token to preregister; a read token reads', async () => {
    const before = await counts();
    expect((await call('POST', '/v1/experiments', file(), TOKENS.reader)).status).toBe(403);
    expect(await counts()).toEqual(before);
    expect((await call('GET', '/v1/experiments', undefined, TOKENS.reader)).status).toBe(200);
  });
});

describe('a locked experiment', () => {
  let id: string;
  beforeAll(async () => {
    id = (await call('POST', '/v1/experiments', file({ project: 'locked-one' }))).json.id;
  });

  it('refuses every edit with 409 naming the field, and nothing changes', async () => {
    const [before] = await api.ds.query(`SELECT prereg, prereg_hash FROM experiments WHERE id = $1`, [id]);
    const changed = { ...PREREG, success_criteria: [{ expr: 'sharpe_oos >= 0.3' }] };
    const patch = await call('PATCH', `/v1/experiments/${id}`, { preregistration: changed });
    expect(patch.status).toBe(409);
    expect(patch.json).toMatchObject({ error: 'experiment_locked', field: 'preregistration.success_criteria' });
    expect(patch.json.message).toContain(`with hash ${before.prereg_hash.slice(0, 12)}…`);
    expect(patch.json.message).toContain('a changed copy is a new experiment (POST /v1/experiments)'.replace('a changed', 'A changed'));
    const put = await call('PUT', `/v1/experiments/${id}`, file({ project: 'locked-one', critic: { provider: 'second', model: 'other' } }));
    expect(put).toMatchObject({ status: 409, json: { field: 'critic.model' } });
    const [after] = await api.ds.query(`SELECT prereg, prereg_hash FROM experiments WHERE id = $1`, [id]);
    expect(after).toEqual(before);
  });

  it('runs once: 202 with a run of workflow experiment and its run.start; again while live 409; after a result 409; altered 409', async () => {
    const started = await call('POST', `/v1/experiments/${id}/run`);
    expect(started.status).toBe(202);
    expect(started.json).toEqual({ experiment_id: id, run_id: expect.stringMatching(/^run_/) });
    const runId = started.json.run_id as string;
    const [run] = await api.ds.query(`SELECT workflow, status, stage, config, project_id, submitted_by FROM runs WHERE id = $1`, [runId]);
    const [exp] = await api.ds.query(`SELECT project_id, run_id FROM experiments WHERE id = $1`, [id]);
    expect(run).toMatchObject({ workflow: 'experiment', status: 'queued', stage: 'INIT', project_id: exp.project_id, submitted_by: 'writer', config: { experiment_id: id, commit: head, preregistration: PREREG } });
    expect(exp.run_id).toBe(runId);
    const outbox = await api.ds.query(`SELECT job_name FROM outbox WHERE run_id = $1`, [runId]);
    expect(outbox.map((o: { job_name: string }) => o.job_name)).toEqual(['run.start']);

    const live = await call('POST', `/v1/experiments/${id}/run`);
    expect(live).toMatchObject({ status: 409, json: { error: 'experiment_run_live', run_id: runId } });

    await api.ds.query(`UPDATE runs SET status = 'done', stage = 'DONE' WHERE id = $1`, [runId]);
    // Its ended run is not forked either: a second look is a new experiment.
    const fork = await call('POST', `/v1/runs/${runId}/fork`, { from: 'INTERPRET' });
    expect(fork).toMatchObject({ status: 409, json: { error: 'run_not_forkable' } });
    expect(fork.json.message).toContain('a changed copy is a new experiment (POST /v1/experiments)');
    const result = { prereg_hash: 'x', commit: head, metrics: { sharpe_oos: 0.7, max_dd: 0.1 }, exit_code: 0, duration_s: 1, output_artifact_id: 'art_1', output_tail: '', run_id: runId };
    await api.ds.query(`UPDATE experiments SET result = $2, decision = 'PASS', status = 'decided' WHERE id = $1`, [id, JSON.stringify(result)]);
    const twice = await call('POST', `/v1/experiments/${id}/run`);
    expect(twice.status).toBe(409);
    expect(twice.json.message).toContain(`experiment ${id} already has a result (decision PASS); a second run is refused`);

    await api.ds.query(`UPDATE experiments SET result = NULL, decision = NULL, status = 'locked', prereg = jsonb_set(prereg, '{data}', '"other"') WHERE id = $1`, [id]);
    const altered = await call('POST', `/v1/experiments/${id}/run`);
    expect(altered.status).toBe(409);
    expect(altered.json.message).toMatch(new RegExp(`the stored preregistration of ${id} no longer matches its locked hash .*altered after it was locked; refused`));
    expect((await api.ds.query(`SELECT count(*)::int AS n FROM runs WHERE config ->> 'experiment_id' = $1`, [id]))[0].n).toBe(1);
  });

  it('lists, shows and reports it', async () => {
    const list = ExperimentList.parse((await call('GET', '/v1/experiments?project=locked-one', undefined, TOKENS.reader)).json);
    expect(list.items.map((i) => i.id)).toEqual([id]);
    expect((await call('GET', '/v1/experiments?status=bogus')).status).toBe(400);
    const detail = ExperimentDetail.parse((await call('GET', `/v1/experiments/${id}`, undefined, TOKENS.reader)).json);
    expect(detail.runs).toHaveLength(1);
    expect((await call('GET', '/v1/experiments/exp_missing')).status).toBe(404);
    const report = await call('GET', `/v1/experiments/${id}/report`, undefined, TOKENS.reader);
    expect(report.status).toBe(200);
    expect(report.text).toContain(PREREG.title);
    expect(report.text).toContain('Decision');
  });
});

describe('drafted experiments', () => {
  it('an idea with a done panel: 201 with a draft experiment whose run drafts its preregistration', async () => {
    const idea = (await call('POST', '/v1/ideas', {
      title: 'Swapboard',
      problem: 'Nurses arrange shift swaps in WhatsApp and wait two days for a paper approval.',
      target_user: 'ward nurses and ward managers in NHS hospital trusts',
      solution: 'A phone app where nurses post and claim shifts and the manager approves with one tap.',
      assumptions: ['ward managers will approve swaps in an app'],
      open_risks: ['the roster vendor may not open its API'],
      no_evidence_yet: true,
    })).json;
    expect((await call('POST', `/v1/ideas/${idea.id}/experiment`, agents())).status).toBe(409);

    const panel = parseYaml(readFileSync(join(PANEL_DIR, 'project.yaml'), 'utf8')) as Record<string, unknown> & { providers: { replay: { cassette: string } } };
    panel.providers.replay.cassette = CASSETTE;
    delete panel.idea;
    const posted = await call('POST', '/v1/runs', { ...panel, idea_ref: { id: idea.id, version: 1 } });
    const panelId = posted.json.id as string;
    const synthesis = { overall_recommendation: 'ITERATE', confidence: 0.6, top_strengths: ['pain'], top_risks: ['vendor'], top_problems: ['paper'], biggest_disagreement: 'demand', recommended_experiment: 'one ward pilot for four weeks' };
    const moderator = { id: `${panelId}-M1`, label: 'M1', callId: `${panelId}-call-M1`, partial: false, body: synthesis };
    await api.ds.query(`UPDATE runs SET status = 'done', stage = 'DONE', finished_at = now(), workflow_state = $2 WHERE id = $1`, [panelId, JSON.stringify({ moderator, verdicts: [], revotes: [] })]);

    expect((await call('POST', `/v1/ideas/${idea.id}/experiment`, { ...agents(), preregistration: PREREG })).json.issues.map((i: { path: string }) => i.path)).toEqual(['preregistration']);
    const made = await call('POST', `/v1/ideas/${idea.id}/experiment`, agents());
    expect(made.status).toBe(201);
    const detail = ExperimentDetail.parse((await call('GET', `/v1/experiments/${made.json.experiment_id}`)).json);
    expect(detail).toMatchObject({ status: 'draft', preregistration: null, prereg_hash: null, locked_at: null, commit: head, source: { idea_id: idea.id, panel_run_id: panelId }, run_id: made.json.run_id });
    const [run] = await api.ds.query(`SELECT workflow, config FROM runs WHERE id = $1`, [made.json.run_id]);
    expect(run).toMatchObject({ workflow: 'experiment', config: { experiment_id: detail.id, draft_from: 'Swapboard: one ward pilot for four weeks' } });

    const edit = await call('PATCH', `/v1/experiments/${detail.id}`, { preregistration: PREREG });
    expect(edit).toMatchObject({ status: 409, json: { error: 'experiment_draft' } });
    expect(edit.json.message).toContain(`POST /v1/runs/${made.json.run_id}/approvals with gate "preregistration"`);
    const run409 = await call('POST', `/v1/experiments/${detail.id}/run`);
    expect(run409.status).toBe(409);
    expect(run409.json.message).toContain(`POST /v1/runs/${made.json.run_id}/approvals (gate "preregistration")`);
    // The idea's experiments, by its id whatever project the file named.
    const drafted = ExperimentList.parse((await call('GET', `/v1/experiments?idea=${idea.id}`)).json);
    expect(drafted.items.map((e) => e.id)).toEqual([detail.id]);
    expect(ExperimentList.parse((await call('GET', '/v1/experiments?idea=idea_other')).json).items).toEqual([]);
  });

  it('a file with draft_from, posted as YAML: 201 with a draft whose run has started', async () => {
    const { preregistration: _p, ...rest } = file({ ...agents(), project: 'drafted' });
    const res = await fetch(`${api.base}/v1/experiments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.writer}`, 'content-type': 'application/yaml' },
      body: stringifyYaml({ ...rest, draft_from: 'does momentum survive trading costs?' }),
    });
    expect(res.status).toBe(201);
    const detail = ExperimentDetail.parse(await res.json());
    expect(detail).toMatchObject({ status: 'draft', preregistration: null, source: null, commit: head, run_id: expect.stringMatching(/^run_/) });
    expect(detail.runs.map((r) => r.id)).toEqual([detail.run_id]);
    const [project] = await api.ds.query(`SELECT p.objective FROM projects p JOIN experiments e ON e.project_id = p.id WHERE e.id = $1`, [detail.id]);
    expect(project.objective).toBe('does momentum survive trading costs?');
    const runs = await call('GET', '/v1/runs');
    expect(runs.status).toBe(200);
  });

  it('POST /v1/runs refuses workflow: experiment, pointing at POST /v1/experiments', async () => {
    const r = await call('POST', '/v1/runs', file());
    expect(r.status).toBe(400);
    expect(r.json.issues).toEqual([{ path: 'workflow', message: 'an experiment is preregistered with POST /v1/experiments (roundtable experiment preregister FILE), not submitted as a run' }]);
  });
});
