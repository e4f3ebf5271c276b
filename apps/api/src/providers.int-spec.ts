import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { agentQueueName, providerRegistryKey } from '@roundtable/contracts';
import { RunEventEntity } from '@roundtable/persistence';
import { createRedisConnection, queuePrefix } from '@roundtable/queues';
import { ApiHarness, demoConfig, publishTestWorker, startApi } from './api-test-harness';
import { ProvidersReply } from '@roundtable/contracts';

jest.setTimeout(30_000);

/** The api holds no provider key: the workers do. */
delete process.env.ANTHROPIC_API_KEY;

interface Reply {
  id: string;
  error: string;
  message: string;
  issues: { path: string; message: string }[];
}

let api: ApiHarness;
beforeEach(async () => {
  api = await startApi({}, { servedProviders: [] });
});
afterEach(async () => {
  await api?.close();
});

async function post(cfg: unknown, query = ''): Promise<{ status: number; json: Reply }> {
  const res = await fetch(`${api.base}/v1/runs${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cfg) });
  return { status: res.status, json: (await res.json()) as Reply };
}

/** The demo with the critic on the real Anthropic provider (its default URL). */
function demoOnAnthropic() {
  const cfg = demoConfig();
  cfg.providers.anthropic = { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' };
  cfg.agents.critic.provider = 'anthropic';
  return cfg;
}

describe('GET /v1/providers', () => {
  it('lists each provider the live workers serve: workers, key variables set, CLIs, queue depth', async () => {
    const w = await publishTestWorker(api.env, {
      providers: ['anthropic', 'replay'],
      keys: { ANTHROPIC_API_KEY: true, OPENAI_API_KEY: false },
      clis: { claude: { found: true, version: '2.0.1 (Claude Code)' }, codex: { found: false, version: null } },
      concurrency: 2,
    });
    const other = await publishTestWorker(api.env, { providers: ['anthropic'], keys: { ANTHROPIC_API_KEY: false }, concurrency: 3 });
    const redis = createRedisConnection(api.env.REDIS_URL);
    const queue = new Queue(agentQueueName('anthropic'), { connection: redis, prefix: queuePrefix(api.env.QUEUE_PREFIX, agentQueueName('anthropic')) });
    try {
      await queue.add('agent.call', { runId: 'run_x', callId: 'call_1' }, { jobId: 'j1' });
      await queue.add('agent.call', { runId: 'run_x', callId: 'call_2' }, { jobId: 'j2', delay: 60_000 });
      const res = await fetch(`${api.base}/v1/providers`);
      expect(res.status).toBe(200);
      const body = ProvidersReply.parse(await res.json());
      expect(body.providers.map((p) => p.name)).toEqual(['anthropic', 'replay']);
      expect(body.providers[0]).toEqual({
        name: 'anthropic',
        workers: [w.worker_id, other.worker_id].sort(),
        keys: { ANTHROPIC_API_KEY: true, OPENAI_API_KEY: false },
        clis: { claude: { found: true, version: '2.0.1 (Claude Code)' }, codex: { found: false, version: null } },
        concurrency: 5,
        queue: { waiting: 1, active: 0, delayed: 1 },
      });
      expect(body.providers[1]).toMatchObject({ name: 'replay', workers: [w.worker_id], concurrency: 2, queue: { waiting: 0, active: 0, delayed: 0 } });
      expect(body.workers.map((x) => x.worker_id).sort()).toEqual([w.worker_id, other.worker_id].sort());
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });

  it('forgets a worker whose record expired', async () => {
    await publishTestWorker(api.env, { providers: ['replay'] }, 200);
    await new Promise((r) => setTimeout(r, 400));
    const body = ProvidersReply.parse(await (await fetch(`${api.base}/v1/providers`)).json());
    expect(body).toEqual({ providers: [], workers: [] });
  });
});

describe('POST /v1/runs against the provider registry', () => {
  it('refuses a provider no live worker serves, naming it, its variable and the worker group to start', async () => {
    await publishTestWorker(api.env, { providers: ['replay'] });
    const res = await post(demoOnAnthropic());
    expect(res.status).toBe(400);
    expect(res.json.issues).toEqual([
      {
        path: 'providers.anthropic.api_key_env',
        message:
          'no live provider-worker serves provider "anthropic": start a provider-worker with PROVIDER_QUEUES=anthropic and ANTHROPIC_API_KEY set (docker compose and k8s: worker-anthropic); or post with ?queue_unserved=true to queue the run until one starts',
      },
    ]);
    expect(res.json.message).toContain('providers.anthropic.api_key_env');
  });

  it('refuses a keyed provider whose workers all lack the key, saying which variable the group needs', async () => {
    const w = await publishTestWorker(api.env, { providers: ['replay', 'anthropic'], keys: { ANTHROPIC_API_KEY: false } });
    const res = await post(demoOnAnthropic());
    expect(res.status).toBe(400);
    expect(res.json.issues).toEqual([
      {
        path: 'providers.anthropic.api_key_env',
        message: expect.stringContaining(`the provider-workers serving provider "anthropic" (${w.worker_id}) all lack ANTHROPIC_API_KEY: set ANTHROPIC_API_KEY on worker-anthropic`),
      },
    ]);
  });

  it('refuses a provider without a key (replay) no worker serves, naming the group', async () => {
    const res = await post(demoConfig());
    expect(res.status).toBe(400);
    expect(res.json.issues).toEqual([{ path: 'providers.replay', message: expect.stringContaining('PROVIDER_QUEUES=replay (docker compose and k8s: worker-replay)') }]);
  });

  it('accepts a keyed provider a worker holding the key serves, the api holding none', async () => {
    expect(process.env.ANTHROPIC_API_KEY).toBeUndefined();
    await publishTestWorker(api.env, { providers: ['replay'] });
    await publishTestWorker(api.env, { providers: ['anthropic'], keys: { ANTHROPIC_API_KEY: true } });
    expect((await post(demoOnAnthropic())).status).toBe(202);
  });

  it('counts a PROVIDER_QUEUES=* worker as serving every provider', async () => {
    await publishTestWorker(api.env, { providers: ['*'], keys: { ANTHROPIC_API_KEY: true } });
    expect((await post(demoOnAnthropic())).status).toBe(202);
  });

  it('with ?queue_unserved=true accepts the run, and its events say which provider waits for which worker', async () => {
    await publishTestWorker(api.env, { providers: ['replay'] });
    const res = await post(demoOnAnthropic(), '?queue_unserved=true');
    expect(res.status).toBe(202);
    const events = await api.ds.getRepository(RunEventEntity).find({ where: { runId: res.json.id }, order: { sequence: 'ASC' } });
    expect(events.map((e) => e.type)).toEqual(['run_created', 'provider_unserved']);
    expect(events[1].payload).toEqual({
      provider: 'anthropic',
      api_key_env: 'ANTHROPIC_API_KEY',
      reason: 'no live provider-worker serves provider "anthropic"',
      start: 'start a provider-worker with PROVIDER_QUEUES=anthropic and ANTHROPIC_API_KEY set (docker compose and k8s: worker-anthropic)',
    });
  });

  it('refuses a queue_unserved that is not true or false, naming it', async () => {
    const res = await post(demoConfig(), '?queue_unserved=yes');
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('queue_unserved is true or false');
  });

  it('skips a record that is not one (never trusted)', async () => {
    const redis = createRedisConnection(api.env.REDIS_URL);
    try {
      await redis.set(providerRegistryKey(api.env.QUEUE_PREFIX, `junk-${randomBytes(2).toString('hex')}`), '{"providers":["replay"]}', 'PX', 60_000);
    } finally {
      redis.disconnect();
    }
    expect((await post(demoConfig())).status).toBe(400);
  });
});
