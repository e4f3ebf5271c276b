import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { parse as parseYaml } from 'yaml';
import { type OperatorPolicy, type ProviderWorkerRecord, readOperatorPolicy } from '@roundtable/contracts';
import { publishStandInWorker } from '@roundtable/testing';
import { createRedisConnection } from '@roundtable/queues';
import { createDataSource, createTestDatabase, TestDatabase } from '@roundtable/persistence';
import type { ApiEnv } from './api.env';
import { createApiApp } from './create-api-app';

/** Integration tests only: the api started in-process on a random port over a fresh database and queue prefix. */
export interface ApiHarness {
  base: string;
  app: NestExpressApplication;
  env: ApiEnv;
  db: TestDatabase;
  /** A separate connection to the test database, for seeding and checking rows. */
  ds: DataSource;
  close(): Promise<void>;
}

export const DEMO_DIR = resolve(__dirname, '../../../examples/dd-demo');

/** A config as a client posts it: loose, so tests can break it in any way. */
export interface PostedConfig {
  providers: Record<string, { type: string; cassette?: string; api_key_env?: string }>;
  agents: Record<string, { provider: string; model: string }>;
  repo?: string;
  [field: string]: unknown;
}

/** The dd-demo project as a posted config: parsed, with the cassette path made absolute as the CLI would. */
export function demoConfig(): PostedConfig {
  const cfg = parseYaml(readFileSync(join(DEMO_DIR, 'project.yaml'), 'utf8')) as PostedConfig;
  cfg.providers.replay.cassette = join(DEMO_DIR, cfg.providers.replay.cassette ?? '');
  return cfg;
}

/** A stand-in provider-worker's record in the harness's registry (libs/testing publishStandInWorker): the in-process api has none. */
export function publishTestWorker(env: Pick<ApiEnv, 'REDIS_URL' | 'QUEUE_PREFIX'>, record: Partial<ProviderWorkerRecord> = {}, ttlMs?: number): Promise<ProviderWorkerRecord> {
  return publishStandInWorker(env.REDIS_URL, env.QUEUE_PREFIX, record, ttlMs);
}

/**
 * `policy`: the operator policy the api enforces; default the suite's (ROUNDTABLE_POLICY, set by test/setup-policy.js).
 * `servedProviders`: what the stand-in provider-worker in the registry serves (default `replay`, as the
 * pipelines' worker; [] for none), with no key variable set: the api holds no keys, the workers do.
 */
export async function startApi(
  overrides: Partial<ApiEnv> = {},
  /** `db`: a migrated database the caller made (on a server of its own); the harness drops it at close as its own. */
  opts: { policy?: OperatorPolicy; servedProviders?: string[]; db?: TestDatabase } = {},
): Promise<ApiHarness> {
  const db = opts.db ?? (await createTestDatabase({ migrate: true }));
  const env: ApiEnv = {
    DATABASE_URL: db.url,
    REDIS_URL: process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `rt_test_${randomBytes(6).toString('hex')}`,
    PORT: 0,
    API_BODY_LIMIT: '64kb',
    AUDIT_PUBLIC_KEY: null,
    SSE_HEARTBEAT_MS: 15_000,
    SSE_RETRY_MS: 3000,
    LOG_FORMAT: 'json',
    API_TOKENS: [],
    API_OPEN: false,
    // The suites post more than a real client would; the limit has its own test.
    RATE_LIMIT_WRITES_PER_MIN: 0,
    CORS_ORIGINS: [],
    ...overrides,
  };
  let app: NestExpressApplication | undefined;
  const ds = createDataSource(db.url, { poolSize: 2 });
  try {
    await ds.initialize();
    app = await createApiApp(env, { logger: ['error'], policy: opts.policy ?? readOperatorPolicy().policy });
    await app.listen(0, '127.0.0.1');
    const served = opts.servedProviders ?? ['replay'];
    if (served.length) await publishTestWorker(env, { providers: served });
  } catch (e) {
    await app?.close().catch(() => undefined);
    if (ds.isInitialized) await ds.destroy();
    await db.drop();
    throw e;
  }
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const started = app;
  return {
    base,
    app: started,
    env,
    db,
    ds,
    async close() {
      await started.close();
      await ds.destroy();
      await db.drop();
      const redis = createRedisConnection(env.REDIS_URL);
      try {
        const keys = await redis.keys(`${env.QUEUE_PREFIX}:*`);
        if (keys.length) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    },
  };
}
