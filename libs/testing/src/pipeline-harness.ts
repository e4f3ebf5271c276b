import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { parse as parseYaml } from 'yaml';
import { createTestDatabase, runMigrations, type TestDatabase } from '@roundtable/persistence';
import { TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL } from './redis-prefix';
import { RunningService, ServiceName, startService, stopService } from './service-processes';
import { waitFor } from './wait-for';

/**
 * The four built services started as separate processes against a fresh database and a
 * random queue prefix, as end-to-end tests need them. Everything it creates, stop() removes.
 */
export interface Pipeline {
  /** Base URL of the api, e.g. http://127.0.0.1:31234 */
  api: string;
  db: TestDatabase;
  prefix: string;
  /** The test-runner's WORKSPACE_ROOT (a fresh temporary directory). */
  workspaceRoot: string;
  services: RunningService[];
  /** A query on the test database (one shared connection, opened on first use). */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** The last lines each service printed, for failure messages. */
  logs(tailChars?: number): string;
  /** Kills every process of a service with SIGKILL (no shutdown hooks: a crash) and starts it again with the same environment. */
  crashAndRestart(name: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

export interface PipelineOptions {
  /** PROVIDER_QUEUES of the provider-worker (default `replay`). */
  providerQueues?: string;
  /** How many provider-worker processes consume those queues (default 1). */
  providerWorkers?: number;
  /** Extra environment for every service. */
  env?: Record<string, string>;
  /** Extra environment for the api alone, after `env` (e.g. its REDIS_URL through a proxy a test cuts). */
  apiEnv?: Record<string, string>;
}

/** Where a run ends: the contracts' list. */
export const TERMINAL_STATUSES = TERMINAL_RUN_STATUSES;

export async function startPipeline(opts: PipelineOptions = {}): Promise<Pipeline> {
  const db = await createTestDatabase();
  const prefix = randomQueuePrefix('rt_e2e');
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'rt-e2e-ws-'));
  // As a deployment's volume is: enterable by the user an agent-mode CLI runs as (cli.run_as).
  chmodSync(workspaceRoot, 0o755);
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, ...opts.env };
  const services: RunningService[] = [];
  let pg: Client | undefined;

  const stop = async () => {
    await Promise.all(services.map((s) => stopService(s)));
    await pg?.end().catch(() => undefined);
    const redis = new IORedis(TEST_REDIS_URL);
    try {
      await deleteRedisPrefix(redis, prefix);
    } finally {
      redis.disconnect();
    }
    await db.drop();
    rmSync(workspaceRoot, { recursive: true, force: true });
  };

  const envOf: Partial<Record<ServiceName, Record<string, string>>> = {
    api: { ...env, ...opts.apiEnv, PORT: port },
    orchestrator: env,
    'provider-worker': { ...env, PROVIDER_QUEUES: opts.providerQueues ?? 'replay', WORKSPACE_ROOT: workspaceRoot },
    'test-runner': { ...env, WORKSPACE_ROOT: workspaceRoot },
  };

  try {
    await runMigrations(db.url);
    // allSettled: a service that fails to start must not leave the others running.
    const started = await Promise.allSettled([
      startService('api', { ...env, ...opts.apiEnv, PORT: port }),
      startService('orchestrator', env),
      // The workspace volume is shared, as in a one-host deployment: an engineer in agent mode works in it.
      ...Array.from({ length: opts.providerWorkers ?? 1 }, () =>
        startService('provider-worker', { ...env, PROVIDER_QUEUES: opts.providerQueues ?? 'replay', WORKSPACE_ROOT: workspaceRoot }),
      ),
      startService('test-runner', { ...env, WORKSPACE_ROOT: workspaceRoot }),
    ]);
    for (const s of started) if (s.status === 'fulfilled') services.push(s.value);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    api: `http://127.0.0.1:${port}`,
    db,
    prefix,
    workspaceRoot,
    services,
    async sql<T>(text: string, params: unknown[] = []) {
      if (!pg) {
        pg = new Client({ connectionString: db.url });
        await pg.connect();
      }
      return (await pg.query(text, params)).rows as T[];
    },
    logs: (tailChars = 3000) => services.map((s) => `--- ${s.name}\n${s.output().slice(-tailChars)}`).join('\n'),
    async crashAndRestart(name) {
      const mine = services.filter((s) => s.name === name);
      await Promise.all(
        mine.map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.process.exitCode !== null || s.process.signalCode !== null) return resolve();
              s.process.once('exit', () => resolve());
              s.process.kill('SIGKILL');
            }),
        ),
      );
      for (const s of mine) services.splice(services.indexOf(s), 1);
      for (let i = 0; i < mine.length; i++) services.push(await startService(name, envOf[name]!));
    },
    stop,
  };
}

/**
 * A project file as a client posts it: the replay cassette paths resolved against the file,
 * then `overrides` merged in one level deep (`{ budget: { max_calls: 4 } }` keeps the other caps).
 */
export function projectConfigFrom(file: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const cfg = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown> & { providers: Record<string, { cassette?: string }> };
  for (const p of Object.values(cfg.providers)) {
    if (p.cassette) p.cassette = path.resolve(path.dirname(file), p.cassette);
  }
  for (const [k, v] of Object.entries(overrides)) {
    const current = cfg[k];
    const mergeable = v && typeof v === 'object' && !Array.isArray(v) && current && typeof current === 'object' && !Array.isArray(current);
    cfg[k] = mergeable ? { ...(current as Record<string, unknown>), ...(v as Record<string, unknown>) } : v;
  }
  return cfg;
}

export interface ApiReply<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** POST /v1/runs: an object goes as JSON, a string as YAML text (or as `contentType`). */
export async function submitRun(api: string, config: unknown, contentType?: string): Promise<ApiReply> {
  const isText = typeof config === 'string';
  const res = await fetch(`${api}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': contentType ?? (isText ? 'application/yaml' : 'application/json') },
    body: isText ? config : JSON.stringify(config),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function getJson<T = Record<string, unknown>>(api: string, urlPath: string): Promise<ApiReply<T>> {
  const res = await fetch(`${api}${urlPath}`);
  return { status: res.status, body: (await res.json()) as T };
}

/** POST a JSON body (resume, cancel, appeal …) and read the JSON answer (empty bodies read as {}). */
export async function postJson<T = Record<string, unknown>>(api: string, urlPath: string, body: unknown = {}): Promise<ApiReply<T>> {
  const res = await fetch(`${api}${urlPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

/** Polls GET /v1/runs/:id until the run is terminal; a timeout carries the services' output. */
export async function waitForTerminal(pipeline: Pick<Pipeline, 'api' | 'logs'>, id: string, timeoutMs = 45_000): Promise<Record<string, unknown>> {
  return waitFor(
    `run ${id} to reach a terminal status`,
    async () => {
      const { body } = await getJson(pipeline.api, `/v1/runs/${id}`);
      return (TERMINAL_STATUSES as readonly string[]).includes(body.status as string) ? body : undefined;
    },
    timeoutMs,
    100,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${pipeline.logs()}`);
  });
}
