import { AgentCallEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';
import { CallDetail, CallList, RunDetail, RunList, SubmittedRun } from '@roundtable/contracts';

jest.setTimeout(30_000);

const WRITER = 'writer-token-0123456789abcdef';
const OPS = 'ops-token-0123456789abcdef';
const READER = 'reader-token-0123456789abcdef';

/** The api with tokens: the bearer door, roles, the write rate limit, Bull Board and /docs behind them. */
describe('the doors', () => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi({
      API_TOKENS: [
        { name: 'writer', token: WRITER, role: 'write' },
        { name: 'ops', token: OPS, role: 'ops' },
        { name: 'reader', token: READER, role: 'read' },
      ],
      RATE_LIMIT_WRITES_PER_MIN: 3,
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const call = (path: string, init: RequestInit & { token?: string } = {}) => {
    const { token, headers, ...rest } = init;
    return fetch(`${api.base}${path}`, { ...rest, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(headers as Record<string, string>) } });
  };
  const submit = (token?: string) =>
    call('/v1/runs', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
  const runCount = async () => Number((await api.ds.query(`SELECT COUNT(*) AS n FROM runs`))[0].n);

  describe('401: no token, or one API_TOKENS does not hold', () => {
    it.each([
      ['GET', '/v1/runs'],
      ['POST', '/v1/runs'],
      ['GET', '/v1/runs/run_0123456789/events'],
      ['GET', '/metrics'],
      ['GET', '/docs/openapi.json'],
      ['GET', '/v1/nothing-here'],
    ])('%s %s without a token → 401 with WWW-Authenticate: Bearer', async (method, path) => {
      const res = await call(path, { method });
      expect(res.status).toBe(401);
      // /docs is a page a browser opens, so it also offers Basic.
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="roundtable"(, Basic realm="roundtable", charset="UTF-8")?$/);
      expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.stringContaining('Authorization: Bearer <token>') });
    });

    it('answers a wrong token with 401 invalid_token, and never echoes it', async () => {
      const res = await call('/v1/runs', { token: 'not-a-token-we-know-0000' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="roundtable", error="invalid_token"');
      const text = await res.text();
      expect(JSON.parse(text).error).toBe('invalid_token');
      expect(text).not.toContain('not-a-token-we-know');
    });

    it('refuses an anonymous body before reading it: 401, not 413', async () => {
      const res = await call('/v1/runs', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: `objective: "${'y'.repeat(100 * 1024)}"\n` });
      expect(res.status).toBe(401);
    });

    it('lets /healthz and /readyz through without a token', async () => {
      expect((await call('/healthz')).status).toBe(200);
      expect((await call('/readyz')).status).toBe(200);
    });
  });

  describe('403: a read token on a write', () => {
    it('reads with a read token, and is refused a POST with 403 and no run created', async () => {
      expect((await call('/v1/runs', { token: READER })).status).toBe(200);
      const before = await runCount();
      const res = await submit(READER);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: 'forbidden', message: 'token reader is read-only; POST /v1/runs needs a write token' });
      expect(await runCount()).toBe(before);
      expect((await call('/v1/runs/run_0123456789/cancel', { method: 'POST', token: READER })).status).toBe(403);
    });
  });

  describe('429: the write rate limit', () => {
    it('takes RATE_LIMIT_WRITES_PER_MIN writes from a token, then answers 429 with Retry-After; reads and other tokens go on', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await submit(WRITER)).status);
      expect(statuses).toEqual([202, 202, 202]);
      const before = await runCount();

      const limited = await submit(WRITER);
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      // 3 a minute: the next token is 20 s away at most.
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(20);
      expect(await limited.json()).toEqual({ error: 'rate_limited', message: `more than 3 writes a minute from token writer; try again in ${retryAfter} s` });
      expect(await runCount()).toBe(before);

      expect((await call('/v1/runs', { token: WRITER })).status).toBe(200);
      expect((await submit(OPS)).status).toBe(202);
    });
  });

  describe('Bull Board behind the same door', () => {
    it('refuses an anonymous request with 401, offering Basic so a browser can ask for the token', async () => {
      const res = await call('/admin/queues');
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Bearer realm="roundtable"');
      expect(res.headers.get('www-authenticate')).toContain('Basic realm="roundtable"');
      expect(await res.text()).not.toMatch(/<html/i);
      expect((await call('/admin/queues/api/queues')).status).toBe(401);
    });

    it('refuses a read or a write token (the board can retry and remove any team\'s jobs), naming the role, and serves an ops token', async () => {
      expect((await call('/admin/queues', { token: READER })).status).toBe(403);
      const write = await call('/admin/queues/api/queues', { token: WRITER });
      expect(write.status).toBe(403);
      expect(await write.json()).toEqual({ error: 'forbidden', message: expect.stringContaining('needs the ops or admin role') });
      const page = await call('/admin/queues', { token: OPS });
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
      const queues = await call('/admin/queues/api/queues', { token: OPS });
      expect(queues.status).toBe(200);
      expect(((await queues.json()) as { queues: { name: string }[] }).queues.map((q) => q.name)).toContain('orchestrator');
    });

    // Express matches routes case-insensitively and with or without a trailing slash, so the door must too.
    it.each(['/ADMIN/QUEUES', '/Admin/Queues/', '/ADMIN/QUEUES/api/queues', '/admin/%71ueues', '/%61dmin/Queues/api/queues', '/admin%2Fqueues'])(
      'guards %s as Bull Board: a read token 403, no token 401',
      async (path) => {
        const read = await call(path, { token: READER });
        expect(read.status).toBe(403);
        expect(((await read.json()) as { error: string }).error).toBe('forbidden');
        const anonymous = await call(path);
        expect(anonymous.status).toBe(401);
        expect(anonymous.headers.get('www-authenticate')).toContain('Basic realm="roundtable"');
      },
    );

    it('serves the board under another case to an ops token (the router really does match it)', async () => {
      const page = await call('/ADMIN/QUEUES', { token: OPS });
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
    });

    it('lets /healthz through as the router matches it (/HEALTHZ, /healthz/), and nothing decoded', async () => {
      expect((await call('/HEALTHZ')).status).toBe(200);
      expect((await call('/readyz/')).status).toBe(200);
      expect((await call('/%68ealthz')).status).toBe(401);
    });

    it('accepts the token as a Basic password, as a browser sends it', async () => {
      const basic = Buffer.from(`anyone:${OPS}`).toString('base64');
      expect((await call('/admin/queues', { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
      const wrong = Buffer.from(`anyone:nope-nope-nope-nope`).toString('base64');
      expect((await call('/admin/queues', { headers: { authorization: `Basic ${wrong}` } })).status).toBe(401);
    });
  });

  describe('/docs and /metrics', () => {
    it('serves the OpenAPI document generated from the zod schemas', async () => {
      const res = await call('/docs/openapi.json', { token: READER });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
      expect(doc.openapi).toMatch(/^3\.1\./);
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/runs', '/v1/runs/{id}', '/v1/runs/{id}/events', '/v1/runs/{id}/calls/{callId}']));
      expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['BuildProjectConfig', 'RunDetail', 'ApiError']));
    });

    it('serves Swagger UI at /docs, with its assets from the package (no CDN)', async () => {
      const page = await call('/docs', { token: READER });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const html = await page.text();
      expect(html).toContain('<div id="swagger-ui">');
      expect(html).not.toMatch(/https?:\/\//);
      const bundle = await call('/docs/swagger-ui-bundle.js', { token: READER });
      expect(bundle.status).toBe(200);
      expect((await bundle.text()).length).toBeGreaterThan(100_000);
      const init = await (await call('/docs/swagger-initializer.js', { token: READER })).text();
      expect(init).toContain("url: '/docs/openapi.json'");
    });

    it('serves /metrics to any token: queue depth per queue and state', async () => {
      const res = await call('/metrics', { token: READER });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/^roundtable_queue_jobs\{queue="orchestrator",state="waiting",service="api"\} \d+$/m);
      expect(text).toContain('# TYPE roundtable_agent_calls_total counter');
    });
  });

  describe('replies match the schemas the OpenAPI document is made of', () => {
    it('submit, list, detail, calls and one call', async () => {
      const sub = await submit(OPS);
      const submitted = SubmittedRun.parse(await sub.json());
      await api.ds.getRepository(AgentCallEntity).insert({
        id: `${submitted.id}-c1`,
        runId: submitted.id,
        seq: 1,
        stage: 'PROPOSE',
        role: 'proposer',
        provider: 'replay',
        model: 'm',
        status: 'queued',
        promptHash: 'h',
        messages: [{ role: 'user', content: 'hi' }],
      } as never);
      const get = async (path: string) => (await call(path, { token: READER })).json();
      expect(RunList.parse(await get('/v1/runs')).map((r) => r.id)).toContain(submitted.id);
      expect(RunDetail.parse(await get(`/v1/runs/${submitted.id}`))).toMatchObject({ id: submitted.id, status: 'queued' });
      expect(CallList.parse(await get(`/v1/runs/${submitted.id}/calls`))).toHaveLength(1);
      expect(CallDetail.parse(await get(`/v1/runs/${submitted.id}/calls/${submitted.id}-c1`)).messages).toEqual([{ role: 'user', content: 'hi' }]);
    });
  });
});

describe('CORS', () => {
  let open: ApiHarness;
  let cors: ApiHarness;

  beforeAll(async () => {
    [open, cors] = await Promise.all([startApi(), startApi({ CORS_ORIGINS: ['https://ops.example.com'], API_TOKENS: [{ name: 'ops', token: OPS, role: 'write' }] })]);
  });
  afterAll(async () => {
    await Promise.all([open?.close(), cors?.close()]);
  });

  it('is off by default: no Access-Control headers, whatever the Origin', async () => {
    const res = await fetch(`${open.base}/v1/runs`, { headers: { origin: 'https://ops.example.com' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('with CORS_ORIGINS, answers a preflight without a token and allows only the listed origins', async () => {
    const preflight = await fetch(`${cors.base}/v1/runs`, {
      method: 'OPTIONS',
      headers: { origin: 'https://ops.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://ops.example.com');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');

    const other = await fetch(`${cors.base}/v1/runs`, { headers: { origin: 'https://evil.example.org', authorization: `Bearer ${OPS}` } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const listed = await fetch(`${cors.base}/v1/runs`, { headers: { origin: 'https://ops.example.com', authorization: `Bearer ${OPS}` } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://ops.example.com');
  });
});
