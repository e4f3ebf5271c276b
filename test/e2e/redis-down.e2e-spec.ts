import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { getJson, Pipeline, projectConfigFrom, startPipeline, startTcpProxy, TcpProxy, TEST_REDIS_URL, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(180_000);

const DEMO = path.resolve(__dirname, '../../examples/dd-demo/project.yaml');
const REDIS_PORT = Number(new URL(TEST_REDIS_URL).port || 6379);

/**
 * The api reaches Redis through a proxy the test takes down (the real Redis stays up: other
 * suites use it, and so do this pipeline's orchestrator and workers). What the issue asks: a
 * submit answers within 2 s with Redis gone, and the run is still made: the orchestrator's outbox
 * sweeper sends its run.start, and the api serves again once its Redis is back.
 */
describe('POST /v1/runs while the api cannot reach Redis', () => {
  let proxy: TcpProxy;
  let pipeline: Pipeline;

  beforeAll(async () => {
    proxy = await startTcpProxy(REDIS_PORT);
    // The write quota on (the default), so its Redis bucket is on the submit's path too.
    pipeline = await startPipeline({ providerQueues: 'replay', apiEnv: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, env: { OUTBOX_SWEEP_MS: '1000' } });
  });
  afterAll(async () => {
    proxy?.restore();
    await pipeline?.stop();
    await proxy?.close();
  });

  const submit = (key: string) =>
    fetch(`${pipeline.api}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(projectConfigFrom(DEMO)) });

  it('answers 202 within 2 s, the sweeper starts the run, and it ends done', async () => {
    proxy.takeDown();
    const key = randomUUID();
    const started = Date.now();
    const res = await submit(key);
    // The bound, loosely: a behaviour, not a benchmark.
    expect(Date.now() - started).toBeLessThan(2500);
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };

    const ready = await fetch(`${pipeline.api}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { message: string }).message).toMatch(/redis/);

    // The api's Redis is still gone: only the orchestrator's sweeper can have sent run.start.
    const run = await waitForTerminal(pipeline, id, 120_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });

    proxy.restore();
    // The same key once Redis is back: the same run, not a second.
    const again = await submit(key);
    expect(again.status).toBe(202);
    expect(((await again.json()) as { id: string }).id).toBe(id);
    const { body } = await getJson<unknown[]>(pipeline.api, '/v1/runs');
    expect(body).toHaveLength(1);
  });
});
