import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readOperatorPolicy } from '@roundtable/contracts';
import { ApiHarness, startApi } from './api-test-harness';

jest.setTimeout(30_000);

/**
 * Ideas at the api (issue 23): worksheets as copy-on-write versions, a version locked by the panel
 * submitted on it (an edit naming it is a 409 naming the version and the run), readiness refusing
 * a panel with every failing check named and nothing written, the append-only ledger with
 * supersedes, cited ids checked, appeals citing the ledger, and the doors (a read token reads only).
 */
const TOKENS = { writer: 'w'.repeat(24), reader: 'r'.repeat(24) };
const PANEL_DIR = join(__dirname, '../../../examples/panel-demo');
let api: ApiHarness;

beforeAll(async () => {
  api = await startApi({ API_TOKENS: [{ name: 'writer', token: TOKENS.writer, role: 'write' }, { name: 'reader', token: TOKENS.reader, role: 'read' }] }, { policy: readOperatorPolicy().policy });
});
afterAll(async () => {
  await api?.close();
});

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', path: string, body?: unknown, token = TOKENS.writer) {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the reply's fields it checks
  return { status: res.status, location: res.headers.get('location'), json: (text ? JSON.parse(text) : null) as any };
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

/** The panel demo's project file with `idea_ref` in place of its idea. */
function panelOn(id: string, version: number): Record<string, unknown> {
  const cfg = parseYaml(readFileSync(join(PANEL_DIR, 'project.yaml'), 'utf8')) as Record<string, unknown> & { providers: { replay: { cassette: string } } };
  cfg.providers.replay.cassette = join(PANEL_DIR, cfg.providers.replay.cassette);
  delete cfg.idea;
  return { ...cfg, idea_ref: { id, version } };
}

const counts = async () => {
  const [row] = await api.ds.query(`SELECT (SELECT count(*) FROM runs)::int AS runs, (SELECT count(*) FROM agent_calls)::int AS calls, (SELECT count(*) FROM outbox)::int AS outbox`);
  return row as { runs: number; calls: number; outbox: number };
};

describe('ideas as versioned worksheets', () => {
  it('creates version 1, edits copy-on-write into new versions, lists, shows and diffs them', async () => {
    const created = await call('POST', '/v1/ideas', WORKSHEET);
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect(id).toMatch(/^idea_[0-9a-f]{10}$/);
    expect(created.location).toBe(`/v1/ideas/${id}`);
    expect(created.json).toMatchObject({ title: 'Swapboard', latest_version: 1, created_by: 'writer', latest: { version: 1, locked: null, worksheet: { ...WORKSHEET, evidence: [] } } });

    const v2 = await call('POST', `/v1/ideas/${id}/versions`, { problem: 'Swaps take a median of two days to approve.' });
    expect(v2.status).toBe(201);
    expect(v2.location).toBe(`/v1/ideas/${id}/versions/2`);
    expect(v2.json).toMatchObject({ version: 2, worksheet: { ...WORKSHEET, problem: 'Swaps take a median of two days to approve.' }, readiness: { ready: true } });
    const v3 = await call('POST', `/v1/ideas/${id}/versions`, { title: 'Swapboard for wards', base_version: 1 });
    expect(v3.json).toMatchObject({ version: 3, worksheet: { title: 'Swapboard for wards', problem: WORKSHEET.problem } });
    // PUT aimed at an unlocked version is an edit too: version 2 stays as it was, the edit is version 4.
    const v4 = await call('PUT', `/v1/ideas/${id}/versions/2`, { solution: 'An app and a manager queue.' });
    expect(v4).toMatchObject({ status: 201, json: { version: 4, worksheet: { problem: 'Swaps take a median of two days to approve.', solution: 'An app and a manager queue.' } } });

    const one = await call('GET', `/v1/ideas/${id}/versions/1`, undefined, TOKENS.reader);
    expect(one.json.worksheet).toEqual({ ...WORKSHEET, evidence: [] });
    const two = await call('GET', `/v1/ideas/${id}/versions/2`, undefined, TOKENS.reader);
    expect(two.json.worksheet.solution).toBe(WORKSHEET.solution);
    expect((await call('GET', `/v1/ideas/${id}/versions`, undefined, TOKENS.reader)).json.map((v: { version: number }) => v.version)).toEqual([1, 2, 3, 4]);
    const detail = await call('GET', `/v1/ideas/${id}`, undefined, TOKENS.reader);
    expect(detail.json).toMatchObject({ latest_version: 4, title: 'Swapboard', latest: { version: 4 } });
    expect((await call('GET', '/v1/ideas', undefined, TOKENS.reader)).json.map((i: { id: string }) => i.id)).toContain(id);

    const diff = await call('GET', `/v1/ideas/${id}/diff?from=1&to=3`, undefined, TOKENS.reader);
    expect(diff.status).toBe(200);
    expect(diff.json.fields.filter((f: { changed: boolean }) => f.changed)).toEqual([{ field: 'title', changed: true, from: 'Swapboard', to: 'Swapboard for wards' }]);
    expect((await call('GET', `/v1/ideas/${id}/diff?from=1&to=x`, undefined, TOKENS.reader)).status).toBe(400);
    expect((await call('GET', `/v1/ideas/${id}/versions/9`, undefined, TOKENS.reader))).toMatchObject({ status: 404, json: { error: 'version_not_found' } });
    expect((await call('GET', '/v1/ideas/idea_0000000000', undefined, TOKENS.reader))).toMatchObject({ status: 404, json: { error: 'idea_not_found' } });
  });

  it('refuses a body that is not a worksheet, naming each field', async () => {
    const bad = await call('POST', '/v1/ideas', { ...WORKSHEET, title: 7, colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.json.issues.map((i: { path: string }) => i.path).sort()).toEqual(['', 'title'].sort());
    expect(bad.json.message).toContain('colour is not a field of a worksheet');
    const empty = await call('POST', `/v1/ideas/${(await call('POST', '/v1/ideas', WORKSHEET)).json.id}/versions`, {});
    expect(empty).toMatchObject({ status: 400, json: { error: 'invalid_idea_edit' } });
  });

  it('a panel on a version locks it: an edit naming it is 409 naming the version and the run, an edit of the latest makes a new version', async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    await call('POST', `/v1/ideas/${id}/versions`, { problem: 'Swaps wait two days.' });
    await call('POST', `/v1/ideas/${id}/versions`, { title: 'Swapboard 3' });
    const run = await call('POST', '/v1/runs', panelOn(id, 2));
    expect(run.status).toBe(202);
    const runId = run.json.id as string;

    const [row] = await api.ds.query(`SELECT idea_id, idea_version, config FROM runs WHERE id = $1`, [runId]);
    expect(row).toMatchObject({ idea_id: id, idea_version: 2 });
    // The run's stored config holds the resolved inline idea, not the reference.
    expect(row.config.idea_ref).toBeUndefined();
    expect(row.config.idea).toMatchObject({ title: 'Swapboard', target_user: WORKSHEET.target_user, evidence: [] });
    expect(row.config.idea.description).toContain('Problem: Swaps wait two days.');

    const v2 = await call('GET', `/v1/ideas/${id}/versions/2`, undefined, TOKENS.reader);
    expect(v2.json).toMatchObject({ locked: { run_id: runId }, panels: [runId] });
    // The list carries each idea's locks and panel count itself (no detail per idea).
    const listed = (await call('GET', '/v1/ideas', undefined, TOKENS.reader)).json.find((i: { id: string }) => i.id === id);
    expect(listed).toMatchObject({ id, latest_version: 3, locked_versions: [2], panels: 1 });
    const detail = await call('GET', `/v1/ideas/${id}`, undefined, TOKENS.reader);
    expect(detail.json.versions).toEqual([
      { version: 1, locked: null, panels: [] },
      { version: 2, locked: { run_id: runId, locked_at: expect.any(String) }, panels: [runId] },
      { version: 3, locked: null, panels: [] },
    ]);

    for (const attempt of [call('PUT', `/v1/ideas/${id}/versions/2`, { title: 'typo fix' }), call('POST', `/v1/ideas/${id}/versions`, { title: 'typo fix', base_version: 2 })]) {
      const refused = await attempt;
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({ error: 'version_locked', version: 2, locked_by_run: runId });
      expect(refused.json.message).toContain(`version 2 is locked: panel run ${runId}`);
      expect(refused.json.message).toContain('make a new version');
    }
    const stored = await call('GET', `/v1/ideas/${id}/versions/2`, undefined, TOKENS.reader);
    expect(stored.json.worksheet.title).toBe('Swapboard');
    const v4 = await call('POST', `/v1/ideas/${id}/versions`, { title: 'typo fix' });
    expect(v4).toMatchObject({ status: 201, json: { version: 4, locked: null, worksheet: { title: 'typo fix', problem: 'Swaps wait two days.' } } });

    // A second panel on the same version keeps the first run as its lock.
    const again = await call('POST', '/v1/runs', panelOn(id, 2));
    expect(again.status).toBe(202);
    expect((await call('GET', `/v1/ideas/${id}/versions/2`, undefined, TOKENS.reader)).json).toMatchObject({ locked: { run_id: runId }, panels: [runId, again.json.id] });
  });

  it('refuses a panel on an unready version with every failing check named, and writes nothing', async () => {
    const id = (await call('POST', '/v1/ideas', { title: 'TBD', problem: '', target_user: 'nurses', solution: 'lorem ipsum', assumptions: [] })).json.id as string;
    const readiness = await call('GET', `/v1/ideas/${id}/versions/1`, undefined, TOKENS.reader);
    expect(readiness.json.readiness.ready).toBe(false);
    expect(readiness.json.readiness.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { check: string }) => c.check)).toEqual(['title_filled', 'problem_filled', 'solution_filled', 'evidence_cited', 'assumptions_listed']);

    const before = await counts();
    const refused = await call('POST', '/v1/runs', panelOn(id, 1));
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe('idea_not_ready');
    expect(refused.json.issues.map((i: { path: string; check: string }) => [i.check, i.path])).toEqual([
      ['title_filled', 'idea_ref.worksheet.title'],
      ['problem_filled', 'idea_ref.worksheet.problem'],
      ['solution_filled', 'idea_ref.worksheet.solution'],
      ['evidence_cited', 'idea_ref.worksheet.evidence'],
      ['assumptions_listed', 'idea_ref.worksheet.assumptions'],
    ]);
    for (const check of ['title_filled', 'problem_filled', 'solution_filled', 'evidence_cited', 'assumptions_listed']) expect(refused.json.message).toContain(check);
    expect(await counts()).toEqual(before);
    expect((await call('GET', `/v1/ideas/${id}/versions/1`, undefined, TOKENS.reader)).json.locked).toBeNull();
  });

  it('refuses an idea_ref that names no idea or version, sits beside an inline idea, or is on a build', async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    expect(await call('POST', '/v1/runs', panelOn('idea_0000000000', 1))).toMatchObject({ status: 400, json: { issues: [{ path: 'idea_ref.id' }] } });
    expect(await call('POST', '/v1/runs', panelOn(id, 5))).toMatchObject({ status: 400, json: { issues: [{ path: 'idea_ref.version', message: `idea ${id} has no version 5 (its latest is 1)` }] } });
    expect(await call('POST', '/v1/runs', { ...panelOn(id, 1), idea: { title: 'x', description: 'y', target_user: 'z' } })).toMatchObject({ status: 400, json: { issues: [{ path: 'idea_ref' }] } });
    const build = await call('POST', '/v1/runs', { ...panelOn(id, 1), workflow: 'build' });
    expect(build.status).toBe(400);
    expect(build.json.message).toContain('only a panel run takes');
    expect(await call('POST', '/v1/runs', { ...panelOn(id, 1), idea_ref: { id, version: 1, path: '/etc/passwd' } })).toMatchObject({ status: 400, json: { issues: [{ path: 'idea_ref' }] } });
  });
});

describe('the evidence ledger', () => {
  it('appends E1, E2 … with the token as logged_by; a correction supersedes; nothing updates or deletes an entry', async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    const e1 = await call('POST', `/v1/ideas/${id}/evidence`, { claim: '31 swaps in March', source: 'ward log', kind: 'metric', date: '2026-03-31' });
    expect(e1).toMatchObject({ status: 201, json: { id: 'E1', idea_id: id, claim: '31 swaps in March', kind: 'metric', date: '2026-03-31', supersedes: null, logged_by: 'writer' } });
    const e2 = await call('POST', `/v1/ideas/${id}/evidence`, { claim: '29 swaps in March', source: 'ward log, recounted', kind: 'metric', date: '2026-04-02', supersedes: 'E1' });
    expect(e2.json).toMatchObject({ id: 'E2', supersedes: 'E1' });
    const ledger = await call('GET', `/v1/ideas/${id}/evidence`, undefined, TOKENS.reader);
    expect(ledger.json.map((e: { id: string; superseded_by: string | null; claim: string }) => [e.id, e.claim, e.superseded_by])).toEqual([
      ['E1', '31 swaps in March', 'E2'],
      ['E2', '29 swaps in March', null],
    ]);
    expect(await call('POST', `/v1/ideas/${id}/evidence`, { claim: 'c', source: 's', kind: 'rumour', date: '2026-04-02' })).toMatchObject({ status: 400, json: { issues: [{ path: 'kind' }] } });
    expect(await call('POST', `/v1/ideas/${id}/evidence`, { claim: 'c', source: 's', kind: 'document', date: 'yesterday' })).toMatchObject({ status: 400, json: { issues: [{ path: 'date' }] } });
    expect(await call('POST', `/v1/ideas/${id}/evidence`, { claim: 'c', source: 's', kind: 'document', date: '2026-04-02', supersedes: 'E9' })).toMatchObject({ status: 400, json: { error: 'unknown_evidence', issues: [{ path: 'supersedes' }] } });
    // Append-only: no route changes or deletes an entry.
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) expect((await call(method, `/v1/ideas/${id}/evidence/E1`, { claim: 'changed' })).status).toBe(404);
    expect((await call('DELETE', `/v1/ideas/${id}/versions/1`)).status).toBe(404);
    expect((await call('GET', `/v1/ideas/${id}/evidence`, undefined, TOKENS.reader)).json[0].claim).toBe('31 swaps in March');
  });

  it('a version cites ledger ids: an unknown one is a 400 naming it', async () => {
    expect(await call('POST', '/v1/ideas', { ...WORKSHEET, no_evidence_yet: false, evidence: ['E1'] })).toMatchObject({ status: 400, json: { error: 'unknown_evidence', issues: [{ path: 'evidence.0', message: expect.stringContaining('cites E1') }] } });
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    await call('POST', `/v1/ideas/${id}/evidence`, { claim: '31 swaps in March', source: 'ward log', kind: 'metric', date: '2026-03-31' });
    const refused = await call('POST', `/v1/ideas/${id}/versions`, { evidence: ['E1', 'E7'], no_evidence_yet: false });
    expect(refused).toMatchObject({ status: 400, json: { error: 'unknown_evidence', issues: [{ path: 'evidence.1', message: expect.stringContaining('cites E7') }] } });
    expect((await call('GET', `/v1/ideas/${id}`, undefined, TOKENS.reader)).json.latest_version).toBe(1);
    const cited = await call('POST', `/v1/ideas/${id}/versions`, { evidence: ['E1'], no_evidence_yet: false });
    expect(cited).toMatchObject({ status: 201, json: { version: 2, worksheet: { evidence: ['E1'] }, readiness: { ready: true } } });
    // The panel's idea carries the cited entry, prefixed with its id.
    const run = await call('POST', '/v1/runs', panelOn(id, 2));
    const [row] = await api.ds.query(`SELECT config FROM runs WHERE id = $1`, [run.json.id]);
    expect(row.config.idea.evidence).toEqual(['[E1] 31 swaps in March — ward log']);
  });

  it('an appeal takes evidence_ids of the run\'s idea: an unknown id, or a run on no idea, is a 400 naming it', async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    await call('POST', `/v1/ideas/${id}/evidence`, { claim: 'partner programme letter', source: 'RLDatix', kind: 'document', date: '2026-04-01' });
    const run = (await call('POST', '/v1/runs', panelOn(id, 1))).json.id as string;
    const unknown = await call('POST', `/v1/runs/${run}/appeal`, { evidence_ids: ['E1', 'E4'], judges: ['engineer'] });
    expect(unknown).toMatchObject({ status: 400, json: { error: 'invalid_appeal_request', issues: [{ path: 'evidence_ids.1', message: 'unknown ledger entry E4' }] } });
    expect(await call('POST', `/v1/runs/${run}/appeal`, { judges: ['engineer'] })).toMatchObject({ status: 400, json: { issues: [{ path: 'evidence' }] } });
    // Known ids pass to the run's own checks (this run has not finished: 409, not a 400).
    expect((await call('POST', `/v1/runs/${run}/appeal`, { evidence_ids: ['E1'], judges: ['engineer'] })).status).toBe(409);

    const cfg = panelOn(id, 1);
    delete cfg.idea_ref;
    const inline = (await call('POST', '/v1/runs', { ...cfg, idea: { title: 'x', description: 'y', target_user: 'z' } })).json.id as string;
    expect(await call('POST', `/v1/runs/${inline}/appeal`, { evidence_ids: ['E1'], judges: ['engineer'] })).toMatchObject({ status: 400, json: { issues: [{ path: 'evidence_ids', message: 'the run has no idea ledger' }] } });
  });
});

describe('the doors', () => {
  it('a read token reads ideas but may not create, edit or log (403), and nothing is written', async () => {
    const id = (await call('POST', '/v1/ideas', WORKSHEET)).json.id as string;
    expect(await call('POST', '/v1/ideas', WORKSHEET, TOKENS.reader)).toMatchObject({ status: 403, json: { error: 'forbidden' } });
    expect((await call('POST', `/v1/ideas/${id}/versions`, { title: 'x' }, TOKENS.reader)).status).toBe(403);
    expect((await call('PUT', `/v1/ideas/${id}/versions/1`, { title: 'x' }, TOKENS.reader)).status).toBe(403);
    expect((await call('POST', `/v1/ideas/${id}/evidence`, { claim: 'c', source: 's', kind: 'metric', date: '2026-01-01' }, TOKENS.reader)).status).toBe(403);
    expect((await call('GET', `/v1/ideas/${id}`, undefined, TOKENS.reader)).json.latest_version).toBe(1);
    expect((await call('GET', `/v1/ideas/${id}/evidence`, undefined, TOKENS.reader)).json).toEqual([]);
    expect((await call('GET', '/v1/ideas', undefined, 'not-a-token-at-all-xxxxxxx')).status).toBe(401);
  });
});

describe('GET /v1/ideas?similar_to=', () => {
  it('finds the ideas sharing the most terms with that one, best first, and leaves out the rest and itself', async () => {
    const make = async (title: string, problem: string, solution: string, target_user: string, assumption: string, risk: string) =>
      (await call('POST', '/v1/ideas', { ...WORKSHEET, title, problem, solution, target_user, assumptions: [assumption], open_risks: [risk] })).json.id as string;
    const source = await make('Shift swaps for nurses', 'Nurses swap hospital shifts on paper forms', 'An app for nurse shift swaps with manager approval', 'ward nurses', 'managers approve in an app', 'roster vendor lock-in');
    const close = await make('Nurse rota swaps', 'Hospital nurses wait days for shift swap approval', 'Shift swap approval on the phone for nurses', 'nurses', 'nurses have phones', 'union objections');
    const far = await make('Sourdough subscription', 'Bakers waste unsold loaves at closing time', 'A weekly bread box', 'bakeries', 'families eat bread weekly', 'delivery cost');
    const nearish = await make('Hospital parking', 'Hospital visitors cannot find a space', 'A live map of free spaces', 'visitors', 'sensors are cheap', 'council permits');
    const similar = await call('GET', `/v1/ideas?similar_to=${source}`, undefined, TOKENS.reader);
    expect(similar.status).toBe(200);
    const ids = similar.json.map((i: { id: string }) => i.id);
    // Other tests' ideas share this database (and nurses); among this test's, the order is the point.
    expect(ids.filter((i: string) => [close, nearish, far].includes(i))).toEqual([close, nearish]);
    expect(ids).not.toContain(source);
    expect((await call('GET', '/v1/ideas?similar_to=idea_0000000000', undefined, TOKENS.reader)).status).toBe(404);
    expect((await call('GET', '/v1/ideas?similar_to=', undefined, TOKENS.reader)).status).toBe(400);
  });
});
