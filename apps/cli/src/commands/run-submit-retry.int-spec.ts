import { join } from 'node:path';
import { RunEntity } from '@roundtable/persistence';
// The CLI against the real api, started in-process by the api's own test harness: a test reaching
// into another app, which production code never may (README.md, library boundaries).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ApiHarness, DEMO_DIR, startApi } from '../../../api/src/api-test-harness';
import { ApiClient } from '../api-client';
import { runCli } from '../cli';
import { captureIo, FakeApi, sendJson, startFakeApi } from '../fake-api.fixture';

jest.setTimeout(60_000);

let api: ApiHarness;
let front: FakeApi | undefined;

beforeAll(async () => {
  api = await startApi();
});
afterEach(async () => {
  await front?.close();
  front = undefined;
});
afterAll(async () => {
  await api?.close();
});

/**
 * In front of the real API: passes every request on, but for the first POST /v1/runs it drops the
 * client's connection once the API has answered, as a load balancer's timeout or a network drop
 * would: the run is made and the client never hears of it.
 */
async function losingTheFirstAnswer(): Promise<FakeApi> {
  let dropped = false;
  return startFakeApi(async (req, res) => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
    const upstream = await fetch(`${api.base}${req.url}`, { method: req.method, headers, body: req.method === 'POST' ? req.body : undefined });
    const text = await upstream.text();
    if (req.method === 'POST' && !dropped) {
      dropped = true;
      res.socket?.destroy();
      return;
    }
    sendJson(res, upstream.status, JSON.parse(text));
  });
}

describe('roundtable run, when the answer to its submit is lost', () => {
  it('sends the submit again with the same Idempotency-Key and makes one run', async () => {
    front = await losingTheFirstAnswer();
    const out = captureIo({ cwd: DEMO_DIR });
    const code = await runCli(['run', join(DEMO_DIR, 'project.yaml'), '--api', front.url, '--json'], out.io);
    expect({ code, stderr: out.stderr() }).toEqual({ code: 0, stderr: '' });

    const posts = front.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    const key = posts[0].headers['idempotency-key'] as string;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1].headers['idempotency-key']).toBe(key);
    const runs = await api.ds.getRepository(RunEntity).findBy({ idempotencyKey: key });
    expect(runs).toHaveLength(1);
    expect(JSON.parse(out.stdout()).id).toBe(runs[0].id);
  });

  it('sends a new key with each invocation', async () => {
    front = await startFakeApi((_req, res) => sendJson(res, 202, { id: 'run_0000000001', status: 'queued', links: {} }));
    for (let i = 0; i < 2; i++) await runCli(['run', join(DEMO_DIR, 'project.yaml'), '--api', front.url, '--json'], captureIo({ cwd: DEMO_DIR }).io);
    const [a, b] = front.requests.map((r) => r.headers['idempotency-key']);
    expect(a).toBeTruthy();
    expect(a).not.toBe(b);
  });
});

describe('ApiClient.postJsonIdempotent', () => {
  it('retries a try that timed out with the same key', async () => {
    let tries = 0;
    front = await startFakeApi((_req, res) => {
      if (++tries === 1) return new Promise((resolve) => setTimeout(resolve, 2000)).then(() => sendJson(res, 202, { id: 'late' }));
      sendJson(res, 202, { id: 'run_0000000002' });
    });
    const client = new ApiClient({ api: front.url, timeoutMs: 300 });
    expect(await client.postJsonIdempotent('/v1/runs', { project: 'x' }, { backoffMs: 10 })).toEqual({ id: 'run_0000000002' });
    const keys = front.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('does not retry an API that is not there, nor a refusal', async () => {
    front = await startFakeApi((_req, res) => sendJson(res, 400, { error: 'invalid_project_config', message: 'bad' }));
    const client = new ApiClient({ api: front.url });
    await expect(client.postJsonIdempotent('/v1/runs', {}, { backoffMs: 10 })).rejects.toMatchObject({ status: 400 });
    expect(front.requests).toHaveLength(1);
    const nobody = new ApiClient({ api: 'http://127.0.0.1:1' });
    await expect(nobody.postJsonIdempotent('/v1/runs', {}, { backoffMs: 10 })).rejects.toMatchObject({ mayHaveArrived: false });
  });
});
