import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@roundtable/persistence';
import { freePort, projectConfigFrom, randomQueuePrefix, type RunningService, startService, stopService, submitRun, TEST_REDIS_URL } from '@roundtable/testing';

const DEMO = path.join(__dirname, '../../examples/dd-demo/project.yaml');

jest.setTimeout(90_000);

/**
 * The built api (dist/apps/api) started as an operator starts it: where it listens without tokens,
 * that it refuses to open itself by accident, that it reads and names its policy at start, and
 * that the policy it read is the one a submission meets.
 */
describe('the api process at the trust boundary', () => {
  let db: TestDatabase;
  let scratch: string;
  const running: RunningService[] = [];
  const TOKEN = 'e2e-trust-token-0123456789abcdef';

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
    scratch = mkdtempSync(path.join(tmpdir(), 'rt-trust-e2e-'));
  });
  afterAll(async () => {
    await Promise.all(running.map((s) => stopService(s)));
    await db?.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const env = async (extra: Record<string, string> = {}) => ({
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: randomQueuePrefix('rt_e2e'),
    PORT: String(await freePort()),
    LOG_FORMAT: 'text',
    ...extra,
  });
  const start = async (extra: Record<string, string> = {}) => {
    const e = await env(extra);
    const svc = await startService('api', e);
    running.push(svc);
    return { svc, base: `http://127.0.0.1:${e.PORT}` };
  };
  /** The start fails: the output it exited with. */
  const refused = async (extra: Record<string, string>) => {
    const err = await startService('api', await env(extra)).then(
      (svc) => {
        running.push(svc);
        throw new Error(`the api started:\n${svc.output()}`);
      },
      (e: Error) => e,
    );
    expect(err.message).toMatch(/api exited with code [1-9]\d* before it was ready/);
    return err.message;
  };

  it('without API_TOKENS listens on loopback only, says so, and names its policy', async () => {
    const { svc, base } = await start();
    expect(svc.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(svc.output()).toContain('API_TOKENS is not set: this API takes no token, so it listens on 127.0.0.1 only');
    // jest's setup points ROUNDTABLE_POLICY at the suite's policy; the service passes it on.
    expect(svc.output()).toContain(`policy: ${process.env.ROUNDTABLE_POLICY}`);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('refuses to start without API_TOKENS on a HOST that is not loopback, naming API_TOKENS, HOST and API_OPEN', async () => {
    const out = await refused({ HOST: '0.0.0.0' });
    expect(out).toContain('HOST: HOST=0.0.0.0 would open the api');
    expect(out).toContain('Set API_TOKENS=name:token:write');
    expect(out).toContain('API_OPEN=true');
  });

  it('opens on purpose with API_OPEN=true, with a warning', async () => {
    const { svc } = await start({ HOST: '0.0.0.0', API_OPEN: 'true' });
    expect(svc.output()).toContain('API_OPEN=true and API_TOKENS is not set: this API is OPEN on 0.0.0.0');
    expect(svc.output()).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+/);
  });

  it('with API_TOKENS listens on every interface by default, behind its tokens', async () => {
    const { svc, base } = await start({ API_TOKENS: `e2e:${TOKEN}:write` });
    expect(svc.output()).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+/);
    expect((await fetch(`${base}/v1/runs`)).status).toBe(401);
    expect((await fetch(`${base}/v1/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('refuses to start on a policy file it cannot read, naming ROUNDTABLE_POLICY', async () => {
    const out = await refused({ ROUNDTABLE_POLICY: path.join(scratch, 'missing.yaml') });
    expect(out).toContain(`ROUNDTABLE_POLICY=${path.join(scratch, 'missing.yaml')} cannot be read (ENOENT)`);
  });

  it('holds a submission to the policy it read at start', async () => {
    const policy = path.join(scratch, 'no-process.yaml');
    writeFileSync(policy, 'sandbox: { allow_process: false }\n');
    const { svc, base } = await start({ ROUNDTABLE_POLICY: policy });
    expect(svc.output()).toContain(`policy: ${policy}`);
    // The demo, which the suite's policy accepts; this one has no cassette roots and no process runner.
    const res = await submitRun(base, projectConfigFrom(DEMO, { sandbox: 'process' }));
    expect(res.status).toBe(400);
    expect((res.body as { issues: unknown }).issues).toEqual([
      { path: 'providers.replay.cassette', message: expect.stringContaining('(cassettes.roots)') },
      { path: 'sandbox.runner', message: expect.stringContaining('(sandbox.allow_process: false)') },
    ]);
  });
});
