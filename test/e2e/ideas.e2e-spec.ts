import path from 'node:path';
import { getJson, Pipeline, postJson, startPipeline, waitFor, waitForTerminal } from '@roundtable/testing';
import { panelOnVersion, SWAPBOARD_WORKSHEET } from './support/idea-worksheets';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const SECOND_PANEL_CASSETTE = path.join(REPO, 'test/fixtures/ideas/second-panel-cassette.yaml');
const LEDGER_APPEAL_CASSETTE = path.join(REPO, 'test/fixtures/ideas/ledger-appeal-cassette.yaml');

/**
 * Ideas as versioned worksheets, end to end (issue 23), the four services as separate processes on
 * the replay provider: the panel demo's cassette answers the judges, so its guards hold for an idea
 * that comes from a worksheet version (the appeal's re-scores expect the RLDatix letter, which here
 * arrives as ledger entry E1).
 */
describe('ideas: worksheet versions, a panel that locks one, the ledger in an appeal, readiness before any call', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline();
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  const WORKSHEET = SWAPBOARD_WORKSHEET;

  async function put(urlPath: string, body: unknown) {
    const res = await fetch(`${pipeline.api}${urlPath}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('(a) three versions, a panel on version 2 locks it (an edit of it is 409), the next edit is version 4; an appeal cites ledger entries that reach the re-scored judges', async () => {
    const created = await postJson<{ id: string; latest_version: number }>(pipeline.api, '/v1/ideas', WORKSHEET);
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await postJson(pipeline.api, `/v1/ideas/${id}/versions`, { problem: 'Swaps are arranged in WhatsApp and take a median of two days to approve on paper.' })).body).toMatchObject({ version: 2 });
    expect((await postJson(pipeline.api, `/v1/ideas/${id}/versions`, { title: 'Swapboard for wards' })).body).toMatchObject({ version: 3 });
    const diff = await getJson<{ fields: { field: string; changed: boolean }[] }>(pipeline.api, `/v1/ideas/${id}/diff?from=1&to=3`);
    expect(diff.body.fields.filter((f) => f.changed).map((f) => f.field)).toEqual(['title', 'problem']);

    const submitted = await postJson<{ id: string }>(pipeline.api, '/v1/runs', panelOnVersion(id, 2, LEDGER_APPEAL_CASSETTE));
    expect(submitted.status).toBe(202);
    const runId = submitted.body.id;
    expect(await waitForTerminal(pipeline, runId, 90_000)).toMatchObject({ status: 'done', workflow: 'panel', verdict: 'ITERATE' });
    // The judges were given version 2: its problem, not version 3's title.
    const [roast] = await pipeline.sql<{ messages: string }>(`SELECT messages::text AS messages FROM agent_calls WHERE run_id = $1 AND role = 'vc' ORDER BY seq LIMIT 1`, [runId]);
    expect(roast.messages).toContain('median of two days');
    expect(roast.messages).not.toContain('Swapboard for wards');

    const v2 = await getJson<{ locked: { run_id: string } | null; panels: string[] }>(pipeline.api, `/v1/ideas/${id}/versions/2`);
    expect(v2.body).toMatchObject({ locked: { run_id: runId }, panels: [runId] });
    const refused = await put(`/v1/ideas/${id}/versions/2`, { title: 'Swapbord' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'version_locked', version: 2, locked_by_run: runId });
    expect(refused.body.message).toContain(`version 2 is locked: panel run ${runId}`);
    expect(refused.body.message).toContain('make a new version');
    const v4 = await postJson(pipeline.api, `/v1/ideas/${id}/versions`, { title: 'Swapboard' });
    expect(v4).toMatchObject({ status: 201, body: { version: 4, locked: null } });
    expect((await getJson<{ worksheet: { title: string } }>(pipeline.api, `/v1/ideas/${id}/versions/2`)).body.worksheet.title).toBe('Swapboard');

    // The ledger: E1 (the partner letter the demo's cassette expects in the appeal), E2, and E3 that the appeal does not cite.
    const log = (claim: string, source: string, kind: string) => postJson<{ id: string }>(pipeline.api, `/v1/ideas/${id}/evidence`, { claim, source, kind, date: '2026-04-01' });
    expect((await log('Swapboard accepted into the RLDatix partner programme with read-write roster API access from Q3', 'RLDatix partner programme letter', 'document')).body.id).toBe('E1');
    expect((await log('median approval fell to 3 hours in a two-week ward trial', 'ward 7 pilot log', 'experiment_result')).body.id).toBe('E2');
    expect((await log('nurses on ward 9 did not want another app', 'interviews, ward 9', 'interview')).body.id).toBe('E3');
    const ledger = await getJson<{ id: string; logged_by: string }[]>(pipeline.api, `/v1/ideas/${id}/evidence`);
    expect(ledger.body.map((e) => e.id)).toEqual(['E1', 'E2', 'E3']);

    const before = await pipeline.sql<{ max: number }>(`SELECT max(sequence)::int AS max FROM run_events WHERE run_id = $1`, [runId]);
    const appealed = await postJson(pipeline.api, `/v1/runs/${runId}/appeal`, { evidence_ids: ['E1', 'E2'], judges: ['engineer', 'pm'] });
    expect(appealed).toMatchObject({ status: 202, body: { requested: 'appeal', evidence: 2 } });
    await waitFor(
      'the appeal to complete',
      async () => ((await pipeline.sql(`SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'appeal_completed' AND sequence > $2`, [runId, before[0].max])).length ? true : undefined),
      60_000,
      200,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${pipeline.logs()}`);
    });
    const appealCalls = await pipeline.sql<{ role: string; messages: string; status: string; cites: string[] | null }>(
      `SELECT role, status, messages::text AS messages, parsed -> 'cites' AS cites FROM agent_calls WHERE run_id = $1 AND stage = 'APPEAL' ORDER BY seq`,
      [runId],
    );
    expect(appealCalls.map((c) => [c.role, c.status])).toEqual([
      ['engineer', 'completed'],
      ['pm', 'completed'],
    ]);
    for (const c of appealCalls) {
      expect(c.messages).toContain('[E1] Swapboard accepted into the RLDatix partner programme');
      expect(c.messages).toContain('[E2] median approval fell to 3 hours in a two-week ward trial — ward 7 pilot log');
      expect(c.messages).not.toContain('[E3]');
      expect(c.cites).toEqual(['E1', 'E2']);
    }
    const report = await (await fetch(`${pipeline.api}/v1/runs/${runId}/report`)).text();
    expect(report).toContain('engineer: 6 → 8');
  });

  it('(b) a panel on an unready version is refused with each failing check named, and no run or agent call is written', async () => {
    const created = await postJson<{ id: string }>(pipeline.api, '/v1/ideas', { title: 'TBD', problem: 'TODO', target_user: 'ward nurses', solution: '...', assumptions: [] });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const counts = async () => (await pipeline.sql<{ runs: number; calls: number }>(`SELECT (SELECT count(*) FROM runs)::int AS runs, (SELECT count(*) FROM agent_calls)::int AS calls`))[0];
    const before = await counts();

    const refused = await postJson<{ error: string; message: string; issues: { path: string; check: string; message: string }[] }>(pipeline.api, '/v1/runs', panelOnVersion(id, 1));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('idea_not_ready');
    expect(refused.body.issues.map((i) => i.check)).toEqual(['title_filled', 'problem_filled', 'solution_filled', 'evidence_cited', 'assumptions_listed']);
    expect(refused.body.issues.map((i) => i.path)).toEqual(['title', 'problem', 'solution', 'evidence', 'assumptions'].map((f) => `idea_ref.worksheet.${f}`));
    for (const i of refused.body.issues) expect(refused.body.message).toContain(`${i.check}: ${i.message}`);

    expect(await counts()).toEqual(before);
    expect(await pipeline.sql(`SELECT id FROM runs WHERE idea_id = $1`, [id])).toEqual([]);
    expect(await pipeline.sql(`SELECT c.id FROM agent_calls c JOIN runs r ON r.id = c.run_id WHERE r.idea_id = $1`, [id])).toEqual([]);
    expect((await getJson<{ locked: unknown; readiness: { ready: boolean } }>(pipeline.api, `/v1/ideas/${id}/versions/1`)).body).toMatchObject({ locked: null, readiness: { ready: false } });
  });
  it('(c) a second panel on the idea is shown the first panel\'s summary and none of its transcript (the cassette\'s guards), and the idea remembers both', async () => {
    const created = await postJson<{ id: string }>(pipeline.api, '/v1/ideas', WORKSHEET);
    const id = created.body.id;
    const first = await postJson<{ id: string }>(pipeline.api, '/v1/runs', panelOnVersion(id, 1));
    expect(await waitForTerminal(pipeline, first.body.id, 90_000)).toMatchObject({ status: 'done', verdict: 'ITERATE' });
    expect((await postJson(pipeline.api, `/v1/ideas/${id}/versions`, { solution: 'An approval queue for ward managers, with the rule checks done before a swap reaches them.' })).body).toMatchObject({ version: 2 });

    // Every judge's roast prompt must hold the memory and no transcript text of the first panel, or the replay refuses the call.
    const second = await postJson<{ id: string }>(pipeline.api, '/v1/runs', panelOnVersion(id, 2, SECOND_PANEL_CASSETTE));
    expect(second.status).toBe(202);
    expect(await waitForTerminal(pipeline, second.body.id, 90_000)).toMatchObject({ status: 'done' });
    const [roast] = await pipeline.sql<{ messages: string }>(`SELECT messages::text AS messages FROM agent_calls WHERE run_id = $1 AND role = 'vc' ORDER BY seq LIMIT 1`, [second.body.id]);
    expect(roast.messages).toContain(`Panel ${first.body.id} on version 1: ITERATE`);
    expect(roast.messages).toContain('1 of 1 held');

    const idea = await getJson<{ memory: { run_id: string; version: number; recommendation: string; changed: string[] }[] }>(pipeline.api, `/v1/ideas/${id}`);
    expect(idea.body.memory.map((m) => [m.run_id, m.version, m.changed])).toEqual([
      [second.body.id, 2, ['solution']],
      [first.body.id, 1, []],
    ]);

    // similar_to searches the panels' summaries too: an idea whose worksheet shares only words its
    // panels' moderator wrote (RLDatix, Employee Online) finds this one.
    const probe = await postJson<{ id: string }>(pipeline.api, '/v1/ideas', {
      ...WORKSHEET,
      title: 'RLDatix partner listing',
      problem: 'Employee Online lacks a marketplace for add-ons',
      target_user: 'RLDatix partners',
      solution: 'A catalogue of Employee Online add-ons',
      assumptions: ['partners pay a listing fee'],
      open_risks: ['RLDatix builds it first'],
    });
    const similar = await getJson<{ id: string }[]>(pipeline.api, `/v1/ideas?similar_to=${probe.body.id}`);
    expect(similar.body.map((i) => i.id)).toContain(id);
  });
});
