import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AgentCallEntity, EvalEntity, ExperimentEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { ownedPathOf } from './team-door.middleware';
import type { TeamOwnedKind } from './team-owned';

jest.setTimeout(60_000);

const A = 'team-a-writer-token-0123456789abcdef';
const B = 'team-b-writer-token-0123456789abcdef';
const ADMIN = 'admin-token-0123456789abcdef';
const OPS = 'ops-token-0123456789abcdef-teama';

const WORKSHEET = {
  title: 'Swapboard',
  problem: 'Nurses arrange shift swaps in WhatsApp and wait two days for a paper approval.',
  target_user: 'ward nurses and ward managers in NHS hospital trusts',
  solution: 'A phone app where nurses post and claim shifts and the manager approves with one tap.',
  assumptions: ['ward managers will approve swaps in an app'],
  open_risks: ['the roster vendor may not open its API'],
  no_evidence_yet: true,
};

type Doc = { paths: Record<string, Record<string, unknown>> };
const doc = buildOpenApiDocument({ version: '1', bodyLimit: '64kb', writesPerMinute: 0 }) as unknown as Doc;
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head']);
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.keys(item)
    .filter((m) => HTTP_METHODS.has(m))
    .map((m) => ({ method: m.toUpperCase(), path })),
);

/**
 * Paths with no id in them, each said why it needs no team door. A list is filtered by the
 * caller's team in its service (checked below, each one); the rest hold no team's rows. A new
 * path that is on neither list and names no team-owned row fails the classification test.
 */
const TEAM_SCOPED_LISTS: Record<string, string> = {
  '/v1/runs': 'the runs list (and POST: the new run is the submitter team\'s)',
  '/v1/ideas': 'the ideas list, similar_to checked like an id (and POST: the new idea is the submitter team\'s)',
  '/v1/experiments': 'the experiments list, ?idea= included (and POST: the new experiment is the submitter team\'s)',
  '/v1/evals': 'the evals list (and POST: the eval and its runs are the submitter team\'s)',
  '/v1/audit/bias': 'the bias audit reads across the caller team\'s runs only',
  '/v1/usage': 'spending by team and project: the caller team\'s rows only',
};
const TEAM_FREE: Record<string, string> = {
  '/': 'the workbench page: static files, no row',
  '/docs/openapi.json': 'the API description',
  '/healthz': 'liveness, no token',
  '/readyz': 'readiness, no token',
  '/metrics': "the process's counters and queue depths, no row of any team",
  '/v1/me': "the token's own name, role and team",
  '/v1/providers': 'the provider registry of the deployment',
  '/v1/examples': "the deployment's example projects",
  '/v1/workflows': 'the workflow registry',
};

describe('the team door (issue 26): team A gets 404 on every route of team B\'s rows; admin sees both', () => {
  let api: ApiHarness;
  const owned = {} as Record<TeamOwnedKind, string>;
  let callId: string;

  const request = async (method: string, path: string, token: string, opts: { sse?: boolean } = {}) => {
    const abort = new AbortController();
    const write = !['GET', 'HEAD'].includes(method);
    const res = await fetch(`${api.base}${path}`, {
      method,
      signal: abort.signal,
      headers: { authorization: `Bearer ${token}`, ...(write ? { 'content-type': 'application/json' } : {}), ...(opts.sse ? { accept: 'text/event-stream' } : {}) },
      body: write ? '{}' : undefined,
    });
    // A stream that was let through stays open: its status and headers are the answer.
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      abort.abort();
      return { status: res.status, text: '', json: null as unknown };
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      /* a report, a plot or a patch: not JSON */
    }
    return { status: res.status, text, json };
  };
  const post = async (path: string, token: string, body: unknown) =>
    (await fetch(`${api.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<{ id: string }>;

  beforeAll(async () => {
    api = await startApi({
      API_TOKENS: [
        { name: 'alice', token: A, role: 'write', team: 'alpha' },
        { name: 'bob', token: B, role: 'approve', team: 'beta' },
        { name: 'root', token: ADMIN, role: 'admin', team: 'platform' },
        { name: 'sre', token: OPS, role: 'ops', team: 'alpha' },
      ],
    });
    // Team B's rows: a run and an idea through the API (so their team is recorded as a submit records it), a call, an experiment and an eval.
    owned.run = (await post('/v1/runs', B, demoConfig())).id;
    owned.idea = (await post('/v1/ideas', B, WORKSHEET)).id;
    callId = `${owned.run}-c1`;
    await api.ds.getRepository(AgentCallEntity).insert({
      id: callId, runId: owned.run, seq: 1, stage: 'PROPOSE', role: 'proposer', provider: 'replay', model: 'm', attempt: 1, status: 'completed', promptHash: 'h', messages: [{ role: 'user', content: 'propose' }], contextRefs: [],
    } as QueryDeepPartialEntity<AgentCallEntity>);
    const [{ project_id: projectId }] = await api.ds.query(`SELECT project_id FROM runs WHERE id = $1`, [owned.run]);
    owned.experiment = 'exp_teambeta01';
    await api.ds.getRepository(ExperimentEntity).insert({ id: owned.experiment, projectId, status: 'draft', team: 'beta' } as QueryDeepPartialEntity<ExperimentEntity>);
    owned.eval = 'eval_teambeta01';
    await api.ds.getRepository(EvalEntity).insert({ id: owned.eval, suite: 'suite-b', score: 'verdict', status: 'running', budget: { max_usd: 1 }, configs: [], team: 'beta' } as unknown as QueryDeepPartialEntity<EvalEntity>);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('records the submitting token\'s team on a run and an idea', async () => {
    const teams = await api.ds.query(`SELECT team FROM runs WHERE id = $1 UNION ALL SELECT team FROM ideas WHERE id = $2`, [owned.run, owned.idea]);
    expect(teams).toEqual([{ team: 'beta' }, { team: 'beta' }]);
    const mine = await post('/v1/runs', A, demoConfig());
    expect((await api.ds.query(`SELECT team, submitted_by FROM runs WHERE id = $1`, [mine.id]))[0]).toEqual({ team: 'alpha', submitted_by: 'alice' });
  });

  /** A path of the document with team B's ids in it (an unknown parameter fails here, so a new one is thought about). */
  const fill = (path: string, ids: Record<TeamOwnedKind, string> = owned) => {
    const kind = ownedPathOf(path.replace('{id}', 'x'))?.kind;
    return path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (name === 'id' && kind) return encodeURIComponent(ids[kind]);
      if (name === 'callId') return callId;
      if (name === 'n') return '1';
      throw new Error(`${path}: the test does not know the path parameter {${name}}; give it a value of team B's in fill()`);
    });
  };
  const missingIds: Record<TeamOwnedKind, string> = { run: 'run_0000000000', idea: 'idea_0000000000', experiment: 'exp_0000000000', eval: 'eval_0000000000' };
  const withId = operations.filter((o) => o.path.includes('{'));

  it('classifies every path of the OpenAPI document: behind the team door, a team-scoped list, or team-free (each said why)', () => {
    const unclassified = Object.keys(doc.paths).filter((p) => {
      if (p.includes('{')) return ownedPathOf(p.replace(/\{\w+\}/g, 'x')) === null;
      return !(p in TEAM_SCOPED_LISTS) && !(p in TEAM_FREE);
    });
    // A path here is new and unchecked: put it under a TEAM_OWNED mount (team-owned.ts), or on a list above with its reason.
    expect(unclassified).toEqual([]);
    expect(withId.length).toBeGreaterThan(30);
  });

  it.each(withId.map((o) => [o.method, o.path] as const))("team A: %s %s on team B's row → the missing row's 404", async (method, path) => {
    const sse = path.endsWith('/events');
    const kind = ownedPathOf(fill(path))!.kind;
    const foreign = await request(method, fill(path), A, { sse });
    const missing = await request(method, fill(path, missingIds), A, { sse });
    expect(missing.status).toBe(404);
    expect(foreign.status).toBe(404);
    // The same body as for an id that does not exist: nothing tells the two apart.
    expect(foreign.text).toBe(missing.text.split(missingIds[kind]).join(owned[kind]));
    expect(foreign.json).toEqual({ error: `${kind}_not_found`, message: expect.stringContaining(owned[kind]) });
  });

  it.each(withId.map((o) => [o.method, o.path] as const))('admin: %s %s on team B\'s row passes the door', async (method, path) => {
    const kind = ownedPathOf(fill(path))!.kind;
    const res = await request(method, fill(path), ADMIN, { sse: path.endsWith('/events') });
    expect({ status: res.status, error: (res.json as { error?: string } | null)?.error }).not.toEqual({ status: 404, error: `${kind}_not_found` });
    expect(res.status).toBeLessThan(500);
  });

  it("an ops token writes within its team only: team B's run is a 404 to it too", async () => {
    expect((await request('POST', `/v1/runs/${owned.run}/cancel`, OPS)).status).toBe(404);
  });

  describe('lists: team B\'s rows absent for team A, present for admin', () => {
    const listed = async (path: string, token: string) => JSON.stringify((await request('GET', path, token)).json);
    it.each([
      ['/v1/runs', 'run'],
      ['/v1/ideas', 'idea'],
      ['/v1/experiments', 'experiment'],
      ['/v1/evals', 'eval'],
      [`/v1/experiments?project=dd-demo`, 'experiment'],
    ] as const)('%s', async (path, kind) => {
      expect(await listed(path, A)).not.toContain(owned[kind]);
      expect(await listed(path, ADMIN)).toContain(owned[kind]);
      expect(await listed(path, B)).toContain(owned[kind]);
    });

    it('/v1/ideas?similar_to= names an idea as an id does: another team\'s is a 404', async () => {
      const res = await request('GET', `/v1/ideas?similar_to=${owned.idea}`, A);
      expect(res).toMatchObject({ status: 404, json: { error: 'idea_not_found' } });
      expect((await request('GET', `/v1/ideas?similar_to=${owned.idea}`, ADMIN)).status).toBe(200);
    });

    it('/v1/audit/bias reads the caller team\'s runs only', async () => {
      const runs = async (token: string) => ((await request('GET', '/v1/audit/bias', token)).json as { scope: { runs: number } }).scope.runs;
      const all = Number((await api.ds.query(`SELECT count(*) AS n FROM runs`))[0].n);
      const alpha = Number((await api.ds.query(`SELECT count(*) AS n FROM runs WHERE team = 'alpha'`))[0].n);
      expect(await runs(A)).toBe(alpha);
      expect(await runs(ADMIN)).toBe(all);
      expect(alpha).toBeLessThan(all);
    });

    it("/v1/usage shows the caller team's spending only, even when asked for another team", async () => {
      // A call of team B's run in flight: its reservation is spending the usage report shows.
      await api.ds.query(`INSERT INTO budget_reservations (call_id, run_id, provider, calls, tokens, cost_usd) VALUES ($1, $2, 'replay', 1, 100, 0.5)`, [`${owned.run}-c1`, owned.run]);
      const teams = async (path: string, token: string) => ((await request('GET', path, token)).json as { rows: { team: string }[] }).rows.map((r) => r.team);
      expect(await teams('/v1/usage', B)).toContain('beta');
      expect(await teams('/v1/usage', A)).not.toContain('beta');
      expect(await teams('/v1/usage?team=beta', A)).toEqual([]);
      expect(await teams('/v1/usage?team=beta', ADMIN)).toEqual(['beta']);
    });

    it('every list path of the document is one checked here', () => {
      expect(Object.keys(TEAM_SCOPED_LISTS).sort()).toEqual(['/v1/audit/bias', '/v1/evals', '/v1/experiments', '/v1/ideas', '/v1/runs', '/v1/usage']);
    });
  });

  it('an idea_ref to another team\'s idea is refused as a missing idea', async () => {
    const cfg = { ...demoConfig(), workflow: 'panel', idea_ref: { id: owned.idea, version: 1 } } as Record<string, unknown>;
    delete cfg.objective;
    const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${A}`, 'content-type': 'application/json' }, body: JSON.stringify(cfg) });
    const body = (await res.json()) as { issues?: { path: string; message: string }[] };
    expect(res.status).toBe(400);
    expect(body.issues).toContainEqual({ path: 'idea_ref.id', message: `no idea ${owned.idea}` });
  });

  it('Bull Board: ops and admin only; a write token is a 403 naming the role', async () => {
    const board = (token: string) => request('GET', '/admin/queues/api/queues', token);
    expect((await board(OPS)).status).toBe(200);
    expect((await board(ADMIN)).status).toBe(200);
    const refused = await board(A);
    expect(refused.status).toBe(403);
    expect((refused.json as { message: string }).message).toContain('needs the ops or admin role');
  });
});
