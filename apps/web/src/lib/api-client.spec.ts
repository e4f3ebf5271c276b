import { ApiClient, ApiHttpError, projectFileContentType } from './api-client';

type Call = { url: string; init: RequestInit };

function client(reply: () => Response, token: string | null = 'tok') {
  const calls: Call[] = [];
  let unauthorized = 0;
  const api = new ApiClient({
    token: () => token,
    onUnauthorized: () => unauthorized++,
    fetch: async (url, init) => {
      calls.push({ url: String(url), init: init ?? {} });
      return reply();
    },
  });
  return { api, calls, unauthorized: () => unauthorized };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('ApiClient', () => {
  it('sends the bearer token and the filters', async () => {
    const c = client(() => json(200, []));
    await c.api.listRuns({ status: 'running', workflow: 'panel' });
    expect(c.calls[0].url).toBe('/v1/runs?status=running&workflow=panel');
    expect((c.calls[0].init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
  });

  it("asks for a page of runs by search, dates and cursor, and hands back the api's X-Next-Cursor", async () => {
    const c = client(() => new Response('[]', { status: 200, headers: { 'content-type': 'application/json', 'X-Next-Cursor': 'abc_-1' } }));
    const page = await c.api.listRunsPage({ q: '100% a_b', status: '', from: '2026-01-02', to: '2026-01-31', cursor: 'prev', limit: 50 });
    expect(c.calls[0].url).toBe('/v1/runs?q=100%25+a_b&from=2026-01-02&to=2026-01-31&cursor=prev&limit=50');
    expect(page).toEqual({ runs: [], nextCursor: 'abc_-1' });
    const last = client(() => json(200, [{ id: 'r1' }]));
    expect(await last.api.listRunsPage()).toEqual({ runs: [{ id: 'r1' }], nextCursor: null });
  });

  it("asks for the workflows' graphs and a run's calls", async () => {
    const c = client(() => json(200, []));
    await c.api.workflows();
    await c.api.calls('run/1');
    expect(c.calls.map((x) => x.url)).toEqual(['/v1/workflows', '/v1/runs/run%2F1/calls']);
  });

  it("reads the evals' list, an eval, and its plot as SVG text with the token (issue 25)", async () => {
    const list = client(() => json(200, { evals: [{ id: 'eval_1' }] }));
    expect(await list.api.evals()).toEqual([{ id: 'eval_1' }]);
    await list.api.evalDetail('eval/1');
    const plot = client(() => new Response('<svg xmlns="http://www.w3.org/2000/svg"/>', { status: 200, headers: { 'content-type': 'image/svg+xml' } }));
    expect(await plot.api.evalPlot('eval_1')).toBe('<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(list.calls.map((x) => x.url)).toEqual(['/v1/evals', '/v1/evals/eval%2F1']);
    expect(plot.calls[0].url).toBe('/v1/evals/eval_1/plot.svg');
    expect(plot.calls[0].init.headers).toEqual({ Accept: 'image/svg+xml', Authorization: 'Bearer tok' });
  });

  it('sends no Authorization header without a token', async () => {
    const c = client(() => json(200, { name: null, role: 'open' }), null);
    await c.api.me();
    expect((c.calls[0].init.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it('posts a YAML project file as text/yaml and a JSON one as application/json, as typed', async () => {
    const c = client(() => json(202, { id: 'r1', status: 'queued' }));
    await c.api.submitRun('project: x\n');
    await c.api.submitRun('  {"project": "x"}');
    expect(c.calls.map((x) => [(x.init.headers as Record<string, string>)['Content-Type'], x.init.body])).toEqual([
      ['text/yaml', 'project: x\n'],
      ['application/json', '  {"project": "x"}'],
    ]);
  });

  it('sends the Idempotency-Key it is given, and none without one', async () => {
    const c = client(() => json(202, { id: 'r1', status: 'queued' }));
    await c.api.submitRun('project: x\n', 'k-1');
    await c.api.submitRun('project: x\n');
    expect(c.calls.map((x) => (x.init.headers as Record<string, string>)['Idempotency-Key'])).toEqual(['k-1', undefined]);
  });

  it('turns a 400 into an ApiHttpError carrying the issues', async () => {
    const body = { error: 'invalid_project_config', message: 'invalid project config', issues: [{ path: 'agents.critic', message: 'missing' }] };
    const c = client(() => json(400, body));
    const err = await c.api.submitRun('x: 1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiHttpError);
    expect((err as ApiHttpError).status).toBe(400);
    expect((err as ApiHttpError).body?.issues).toEqual(body.issues);
    expect(c.unauthorized()).toBe(0);
  });

  it('tells the app on a 401, whatever the call', async () => {
    const c = client(() => json(401, { error: 'invalid_token', message: 'the token is not one this API accepts' }));
    await expect(c.api.report('r1')).rejects.toMatchObject({ status: 401 });
    expect(c.unauthorized()).toBe(1);
  });

  it('reads text documents as text', async () => {
    const c = client(() => new Response('diff --git a/x b/x\n', { status: 200 }));
    expect(await c.api.diff('r 1')).toBe('diff --git a/x b/x\n');
    expect(c.calls[0].url).toBe('/v1/runs/r%201/diff');
  });
});

describe('projectFileContentType', () => {
  it('is JSON only when the text is a JSON object', () => {
    expect(projectFileContentType('{}')).toBe('application/json');
    expect(projectFileContentType('# a comment\nproject: x')).toBe('text/yaml');
  });
});
