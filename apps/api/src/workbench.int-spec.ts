import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiHarness, startApi } from './api-test-harness';
import { WORKBENCH_CSP } from './workbench.handler';

jest.setTimeout(30_000);

/**
 * The workbench's static files: served from WEB_ROOT without a token, never anything outside it,
 * and never in the place of a route behind the doors. The api runs with tokens, as deployed.
 */

const TOKEN = 'workbench-read-0123456789abcdef';
const INDEX = '<!doctype html><title>Roundtable workbench</title><script type="module" src="/assets/index-4f3a9c2d.js"></script>';
const SECRET = 'SECRET-OUTSIDE-WEB-ROOT';

let scratch: string;
let api: ApiHarness;
let unbuilt: ApiHarness;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request whose path goes out byte for byte (fetch would resolve `..` and re-encode it). */
function raw(base: string, path: string, opts: { method?: string; token?: string } = {}): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: opts.method ?? 'GET', headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'rt-web-'));
  const root = join(scratch, 'web');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), INDEX);
  writeFileSync(join(root, 'assets', 'index-4f3a9c2d.js'), 'console.log("workbench");\n');
  writeFileSync(join(root, 'assets', 'style.css'), 'body { margin: 0 }\n');
  writeFileSync(join(root, 'assets', '.env'), SECRET);
  // Beside the root, and a link inside it that leads there and one to /etc/passwd.
  writeFileSync(join(scratch, 'secret.txt'), SECRET);
  symlinkSync(join(scratch, 'secret.txt'), join(root, 'assets', 'escape.js'));
  symlinkSync('/etc/passwd', join(root, 'assets', 'passwd.css'));
  const tokens = [{ name: 'reader', token: TOKEN, role: 'read' }] as never;
  [api, unbuilt] = await Promise.all([startApi({ API_TOKENS: tokens, WEB_ROOT: root }), startApi({ API_TOKENS: tokens, WEB_ROOT: join(scratch, 'not-built') })]);
});

afterAll(async () => {
  await Promise.all([api?.close(), unbuilt?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

describe('the workbench page', () => {
  it.each(['/', '/runs', '/runs/', '/runs/run_0123456789', '/runs/run_0123456789/calls/run_0123456789-c1', '/new', '/RUNS', '/compare', '/compare?a=run_1&b=run_2', '/ideas', '/ideas/', '/ideas/idea_0123456789', '/ideas/idea_0123456789?version=2', '/experiments', '/experiments/exp_0123456789', '/evals', '/evals/eval_0123456789', '/audit', '/audit?project=dd-demo'])(
    'answers %s with index.html, without a token, under its content policy',
    async (path) => {
      const res = await raw(api.base, path);
      expect(res.status).toBe(200);
      expect(res.body).toBe(INDEX);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe("default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'");
      expect(res.headers['content-security-policy']).toBe(WORKBENCH_CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-cache');
    },
  );

  it('answers HEAD like GET, without the body', async () => {
    const res = await raw(api.base, '/runs', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe('');
  });

  it('answers 503 saying how to build it when WEB_ROOT has no index.html, and the api serves on', async () => {
    const res = await raw(unbuilt.base, '/runs/run_x');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toEqual({ error: 'workbench_not_built', message: expect.stringContaining('node tools/build.mjs web') });
    expect((await raw(unbuilt.base, '/healthz')).status).toBe(200);
    expect((await raw(unbuilt.base, '/v1/runs', { token: TOKEN })).status).toBe(200);
  });
});

describe('the workbench assets', () => {
  it('serves a hashed bundle for a year and any other asset revalidated', async () => {
    const js = await raw(api.base, '/assets/index-4f3a9c2d.js');
    expect(js.status).toBe(200);
    expect(js.body).toBe('console.log("workbench");\n');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    const css = await raw(api.base, '/assets/style.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('no-cache');
  });

  it.each([
    '/assets/../../secret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/%2E%2E%2F%2E%2E%2Fsecret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/..%5c..%5csecret.txt',
    '/assets/%252e%252e/%252e%252e/secret.txt',
    '/assets/escape.js',
    '/assets/passwd.css',
    '/assets/.env',
    '/assets/%2eenv',
    '/assets/x%00.js',
    '/assets//etc/passwd',
    '/assets/%2fetc%2fpasswd',
    '/assets/%E0%A4%A',
    '/assets/',
    '/assets/nope.js',
  ])('serves nothing outside the root, no dotfile and no link out: %s is a 404', async (path) => {
    const res = await raw(api.base, path);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain('root:');
    expect(JSON.parse(res.body).error).toBe('asset_not_found');
  });
});

describe('the doors stay where they were', () => {
  it.each(['/v1/runs', '/V1/RUNS', '/v1/runs/run_x/records', '/docs', '/docs/openapi.json', '/admin/queues', '/ADMIN/QUEUES/', '/metrics', '/v1/nope'])(
    '%s still needs the token (401 JSON, never the page)',
    async (path) => {
      const res = await raw(api.base, path);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).not.toContain('Roundtable workbench');
    },
  );

  it('keeps an unknown /v1 route a JSON 404, and a write to a page route a write behind the door', async () => {
    const res = await raw(api.base, '/v1/x', { token: TOKEN });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).not.toContain('Roundtable workbench');
    expect((await raw(api.base, '/runs', { method: 'POST' })).status).toBe(401);
    expect((await raw(api.base, '/', { method: 'POST', token: TOKEN })).status).toBe(403);
  });

  it('answers /healthz and /readyz without a token as before', async () => {
    expect((await raw(api.base, '/healthz')).status).toBe(200);
    expect((await raw(api.base, '/readyz')).status).toBe(200);
  });

  it.each(['/runsx', '/runs.json', '/newer', '/assetsx/a.js', '//runs', '/comparex', '/compare/run_1', '/ideasx', '/ideas.json', '/experimentsx', '/experiments.json', '/evalsx', '/evals.json', '/auditx', '/audit/bias'])('does not take %s for a page route', async (path) => {
    const res = await raw(api.base, path);
    expect(res.status).toBe(401);
    expect(res.body).not.toContain('Roundtable workbench');
  });
});
