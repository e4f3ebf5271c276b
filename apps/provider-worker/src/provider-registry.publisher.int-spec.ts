import { randomBytes } from 'node:crypto';
import { DEFAULT_OPERATOR_POLICY, providerRegistryKey, ProviderWorkerRecord } from '@roundtable/contracts';
import { createRedisConnection } from '@roundtable/queues';
import { ProviderRegistryPublisher } from './provider-registry.publisher';

jest.setTimeout(20_000);

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const redis = createRedisConnection(REDIS_URL);
const prefix = `rt_test_${randomBytes(6).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

function publisher(env: NodeJS.ProcessEnv, timing = { heartbeatMs: 100, ttlMs: 400 }) {
  return new ProviderRegistryPublisher(redis, {
    prefix,
    providers: ['anthropic', 'replay'],
    concurrency: 3,
    policy: DEFAULT_OPERATOR_POLICY,
    // No CLI may run here: the probe only looks on PATH, which is empty.
    cliUser: { ok: false, message: 'no CLI' },
    env,
    ...timing,
  });
}

async function recordOf(p: ProviderRegistryPublisher): Promise<ProviderWorkerRecord | null> {
  const raw = await redis.get(providerRegistryKey(prefix, p.workerId));
  return raw ? ProviderWorkerRecord.parse(JSON.parse(raw)) : null;
}

describe('a provider-worker in the provider registry', () => {
  it('publishes what it serves and which key variables are set, never a value', async () => {
    const p = publisher({ ANTHROPIC_API_KEY: 'sk-ant-secret-value', OPENAI_API_KEY: '  ', PATH: '' });
    await p.start();
    try {
      const raw = (await redis.get(p.key))!;
      expect(raw).not.toContain('sk-ant-secret-value');
      expect(ProviderWorkerRecord.parse(JSON.parse(raw))).toMatchObject({
        worker_id: p.workerId,
        providers: ['anthropic', 'replay'],
        keys: { ANTHROPIC_API_KEY: true, OPENAI_API_KEY: false, XAI_API_KEY: false, GEMINI_API_KEY: false, GOOGLE_API_KEY: false },
        clis: { claude: { found: false, version: null }, codex: { found: false, version: null } },
        concurrency: 3,
      });
    } finally {
      await p.onModuleDestroy();
    }
    expect(await redis.exists(p.key)).toBe(0);
  });

  it('refreshes its record every heartbeat, within the TTL', async () => {
    const p = publisher({ PATH: '' });
    await p.start();
    try {
      const first = (await recordOf(p))!.heartbeat_at;
      await sleep(600); // past the TTL: only the heartbeats keep it
      const later = await recordOf(p);
      expect(later).not.toBeNull();
      expect(later!.heartbeat_at > first).toBe(true);
      expect(await redis.pttl(p.key)).toBeGreaterThan(0);
    } finally {
      await p.onModuleDestroy();
    }
  });

  it('drops out TTL after its last heartbeat, as a killed worker does', async () => {
    const p = publisher({ PATH: '' });
    await p.start();
    p.stopHeartbeat();
    expect(await recordOf(p)).not.toBeNull();
    await sleep(700);
    expect(await recordOf(p)).toBeNull();
  });
});
