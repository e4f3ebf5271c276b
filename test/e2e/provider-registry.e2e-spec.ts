import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  FakeLlmServer,
  getJson,
  Pipeline,
  RunningService,
  startFakeLlmServer,
  startPipeline,
  startService,
  stopService,
  submitRun,
  TEST_REDIS_URL,
  waitForTerminal,
} from '@roundtable/testing';
import { demoOn, demoReplies, writeTestPricing } from './support/provider-runs';

jest.setTimeout(120_000);

/**
 * Provider keys live on the workers (issue 15): the api holds none and asks the provider
 * registry. A real provider-worker process, started with PROVIDER_QUEUES=anthropic and the key
 * only in its own environment, publishes itself; the api then accepts a run on the Anthropic SDK
 * (pointed at the fake wire server) and refuses it again once that worker has stopped.
 */
const KEY = 'E2E_ANTHROPIC_KEY';

interface ProviderEntry {
  name: string;
  workers: string[];
  keys: Record<string, boolean>;
  queue: { waiting: number; active: number; delayed: number } | null;
}

describe('the provider registry between real processes', () => {
  let pipeline: Pipeline;
  let server: FakeLlmServer;
  let worker: RunningService | undefined;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-e2e-registry-'));
    // No key anywhere in the pipeline's environment: its worker serves replay only.
    pipeline = await startPipeline({ env: { PRICING_FILE: writeTestPricing(dir) } });
    server = await startFakeLlmServer({ script: { replies: demoReplies() } });
  });

  afterAll(async () => {
    if (worker) await stopService(worker);
    await server?.close();
    await pipeline?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const config = () => demoOn({ anthropic: { type: 'anthropic', api_key_env: KEY, base_url: server.baseUrls.anthropic } }, 'anthropic', 'claude-haiku-4-5');
  const providers = async () => (await getJson<{ providers: ProviderEntry[] }>(pipeline.api, '/v1/providers')).body.providers;

  it('refuses a run on anthropic while no worker serves it, naming the variable and the worker group', async () => {
    expect((await providers()).map((p) => p.name)).toEqual(['replay']);
    const res = await submitRun(pipeline.api, config());
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      { path: 'providers.anthropic.api_key_env', message: expect.stringContaining(`PROVIDER_QUEUES=anthropic and ${KEY} set (docker compose and k8s: worker-anthropic)`) },
    ]);
  });

  it('accepts and runs it once a worker holding the key publishes itself; the api holds no key', async () => {
    worker = await startService('provider-worker', {
      DATABASE_URL: pipeline.db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: pipeline.prefix,
      PROVIDER_QUEUES: 'anthropic',
      PRICING_FILE: path.join(dir, 'pricing.yaml'),
      [KEY]: 'sk-ant-e2e-0123456789',
    });
    const anthropic = (await providers()).find((p) => p.name === 'anthropic');
    expect(anthropic).toMatchObject({ workers: [expect.any(String)], keys: expect.objectContaining({ [KEY]: true }), queue: { waiting: 0, active: 0, delayed: 0 } });
    const replay = (await providers()).find((p) => p.name === 'replay');
    expect(replay?.keys[KEY]).toBe(false);

    const res = await submitRun(pipeline.api, config());
    expect(res.status).toBe(202);
    const run = await waitForTerminal(pipeline, res.body.id as string, 90_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((q) => q.wire === 'anthropic' && q.status === 200)).toBe(true);
  });

  it('refuses it again once that worker has stopped (its record is deleted on a clean stop)', async () => {
    expect(await stopService(worker!)).toBe(0);
    worker = undefined;
    expect((await providers()).map((p) => p.name)).toEqual(['replay']);
    expect((await submitRun(pipeline.api, config())).status).toBe(400);
  });
});
