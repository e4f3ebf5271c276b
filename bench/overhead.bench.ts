/**
 * `npm run bench:overhead`: what Roundtable's orchestration costs per agent call, against the
 * floor of the same transport and store and against two peers (LangGraph.js, DBOS Transact). Not
 * a jest test: it prints figures and checks them against the targets of issues 2, 13 and 27; when
 * the build phase ran, its last line is `ratio <overhead p50 / floor p50>`.
 *
 * Phases (BENCH_PHASES, comma-separated, in this order; DEFAULT_PHASES when unset):
 *   build     examples/dd-demo runs, sequential ratio against the floor and concurrent steps/s (build-phase.ts)
 *   panel     examples/panel-demo runs, sequential and 50 at once, CPU per call per process and backend (panel-phase.ts)
 *   peer      a LangGraph.js StateGraph of the panel's shape on PostgresSaver, same concurrency (peer-phase.ts)
 *   dbos      a DBOS Transact workflow of the panel's shape, each call a step, same concurrency (dbos-phase.ts)
 *   long      a panel of 10 debate rounds: CPU of its first 20 and last 20 orchestrator steps (long-run.ts)
 *   panel500  500 panel runs at once: all done, every service's peak RSS (panel500-phase.ts)
 * The services (api, orchestrator, provider-worker, test-runner) run as separate processes from
 * dist/, on a scratch database and random queue prefixes that are removed at the end.
 *
 * Knobs (env), besides each phase's (see its file and bench/README.md): BENCH_PHASES,
 * BENCH_CONCURRENCY (50: worker concurrency of every service and of the floor), TEST_DATABASE_URL,
 * TEST_REDIS_URL, ROUNDTABLE_POLICY (the services' policy; the bench adds its scratch directory to
 * its cassette roots). For profiling: BENCH_SERVICE_NODE_OPTIONS (NODE_OPTIONS of the services, e.g.
 * --require a profiler preload) and BENCH_KEEP_DATABASE=1 (leave the scratch database; its name is printed).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, hostname, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { Pool } from 'pg';
import { stringify as toYaml } from 'yaml';
import { readOperatorPolicy } from '@roundtable/contracts';
import { createTestDatabase, runMigrations } from '@roundtable/persistence';
import { deleteRedisPrefix, randomQueuePrefix, RunningService, startService, stopService, TEST_REDIS_URL } from '@roundtable/testing';
import { BenchContext, fmt, intEnv, log } from './bench-context';
import { buildPhase } from './build-phase';
import { dbosPhase, DbosFigures } from './dbos-phase';
import { Floor } from './floor';
import { longPhase } from './long-run';
import { panelPhase, PanelFigures } from './panel-phase';
import { panel500Phase } from './panel500-phase';
import { peerPhase, PeerFigures } from './peer-phase';
import { localRedisPid } from './redis-ops';
import { rssMb } from './rss';

const PHASES = ['build', 'panel', 'peer', 'dbos', 'long', 'panel500'] as const;
type Phase = (typeof PHASES)[number];
const DEFAULT_PHASES: readonly Phase[] = PHASES;

function phasesToRun(): Set<Phase> {
  const raw = process.env.BENCH_PHASES?.trim();
  if (!raw) return new Set(DEFAULT_PHASES);
  const asked = raw.split(',').map((p) => p.trim()).filter(Boolean);
  const unknown = asked.filter((p) => !(PHASES as readonly string[]).includes(p));
  if (unknown.length) throw new Error(`BENCH_PHASES: unknown phase(s) ${unknown.join(', ')}; pick from ${PHASES.join(',')}`);
  return new Set(asked as Phase[]);
}

const CONCURRENCY = intEnv('BENCH_CONCURRENCY', 50);
const SERVICE_NODE_OPTIONS = process.env.BENCH_SERVICE_NODE_OPTIONS ?? '';
const KEEP_DATABASE = process.env.BENCH_KEEP_DATABASE === '1';
const POOL_SIZE = 10; // node-postgres' default, which every service's TypeORM pool uses
const TARGET_PEER_FACTOR = 1.2;
const TARGET_DBOS_FACTOR = 0.5;

type Cleanup = () => Promise<unknown> | unknown;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * The services' policy: ROUNDTABLE_POLICY's (the local quick start's by default) with the bench's
 * scratch directory added to the cassette roots, for the long run's generated cassette.
 */
function benchPolicyFile(scratchDir: string): string {
  const { policy } = readOperatorPolicy(process.env);
  const file = path.join(scratchDir, 'policy.yaml');
  writeFileSync(file, toYaml({ ...policy, cassettes: { ...policy.cassettes, roots: [...policy.cassettes.roots, scratchDir] } }));
  return file;
}

async function main(): Promise<number> {
  const phases = phasesToRun();
  const cleanups: Cleanup[] = [];
  const cleanUp = async () => {
    for (const c of cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch (e) {
        process.stderr.write(`bench: cleanup step failed: ${(e as Error).message}\n`);
      }
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench: ${signal}, cleaning up\n`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  // A reader that goes away (`| head`) must not kill the bench before it has stopped the
  // services it started and dropped its database: the rest of the output is simply lost.
  process.stdout.on('error', () => undefined);

  let services: RunningService[] = [];
  try {
    // --- scratch infrastructure -----------------------------------------------------------
    const db = await createTestDatabase();
    cleanups.push(() => (KEEP_DATABASE ? process.stderr.write(`bench: kept the database ${db.url}\n`) : db.drop()));
    await runMigrations(db.url);
    const redis = new IORedis(TEST_REDIS_URL);
    cleanups.push(() => redis.disconnect());
    const prefix = randomQueuePrefix('rt_bench');
    const floorPrefix = randomQueuePrefix('rt_bench_floor');
    cleanups.push(() => deleteRedisPrefix(redis, prefix));
    cleanups.push(() => deleteRedisPrefix(redis, floorPrefix));
    const workspaces = mkdtempSync(path.join(tmpdir(), 'rt-bench-ws-'));
    cleanups.push(() => rmSync(workspaces, { recursive: true, force: true }));
    const scratchDir = mkdtempSync(path.join(tmpdir(), 'rt-bench-scratch-'));
    cleanups.push(() => rmSync(scratchDir, { recursive: true, force: true }));
    const pg = new Pool({ connectionString: db.url, max: 4, application_name: 'roundtable-bench' });
    cleanups.push(() => pg.end());

    // --- the services, as separate processes ------------------------------------------------
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      NO_COLOR: '1',
      ROUNDTABLE_POLICY: benchPolicyFile(scratchDir),
      ...(SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: SERVICE_NODE_OPTIONS } : {}),
      ...(process.env.BENCH_PROFILE_DIR ? { BENCH_PROFILE_DIR: process.env.BENCH_PROFILE_DIR } : {}),
    };
    const c = String(CONCURRENCY);
    const redisClients = async () => Number(/^connected_clients:(\d+)/m.exec(await redis.info('clients'))?.[1] ?? NaN);
    const clientsBefore = await redisClients();
    cleanups.push(() => Promise.all(services.map((s) => stopService(s))));
    services = await Promise.all([
      // No write limit: the bench posts more runs a minute than the default 60.
      startService('api', { ...env, PORT: String(port), RATE_LIMIT_WRITES_PER_MIN: '0' }),
      startService('orchestrator', { ...env, ORCHESTRATOR_CONCURRENCY: c }),
      startService('provider-worker', { ...env, PROVIDER_QUEUES: 'replay', PROVIDER_CONCURRENCY: c }),
      startService('test-runner', { ...env, WORKSPACE_ROOT: workspaces, TEST_RUNNER_CONCURRENCY: c }),
    ]);
    const serviceRedisClients = (await redisClients()) - clientsBefore;
    const floor = await Floor.start({ redisUrl: TEST_REDIS_URL, databaseUrl: db.url, prefix: floorPrefix, concurrency: CONCURRENCY, poolSize: POOL_SIZE });
    cleanups.push(() => floor.close());
    const ctx: BenchContext = {
      api: `http://127.0.0.1:${port}`,
      pg,
      db,
      redis,
      redisPid: await localRedisPid(redis),
      services,
      floor,
      concurrency: CONCURRENCY,
      poolSize: POOL_SIZE,
      scratchDir,
      targets: [],
      failures: [],
      defer: (cleanup) => cleanups.push(cleanup),
    };

    const load = () => loadavg().map((l) => fmt(l)).join(' ');
    log(`machine: ${hostname()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`);
    log(`settings: phases ${[...phases].join(',')}; worker concurrency ${CONCURRENCY} (orchestrator, provider-worker, test-runner, floor); pg pool ${POOL_SIZE}`);
    log(`load average at start (1, 5, 15 min): ${load()}`);
    log(`resident memory at start, MB (VmRSS): ${services.map((s) => `${s.name} ${fmt(rssMb(s.process.pid) ?? NaN, 1)}`).join(', ')}`);
    log(`Redis connections the four services opened (connected_clients before and after their start; server-wide): ${serviceRedisClients}`);

    let ratio: number | null = null;
    let panel: PanelFigures | null = null;
    let peer: PeerFigures | null = null;
    let dbos: DbosFigures | null = null;
    const timed = async <T>(phase: Phase, work: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await work();
      } finally {
        log(`bench: ${phase} phase took ${fmt((performance.now() - started) / 1000, 0)} s`);
      }
    };
    if (phases.has('build')) ratio = await timed('build', () => buildPhase(ctx));
    if (phases.has('panel')) panel = await timed('panel', () => panelPhase(ctx));
    if (phases.has('peer')) peer = await timed('peer', () => peerPhase(ctx));
    if (phases.has('dbos')) dbos = await timed('dbos', () => dbosPhase(ctx));
    if (phases.has('long')) await timed('long', () => longPhase(ctx));
    // Last: it leaves 500 runs' rows behind, which no other phase should read around.
    if (phases.has('panel500')) await timed('panel500', () => panel500Phase(ctx));
    if (panel && peer) {
      const factor = panel.concurrentCallsPerSecond / peer.concurrentCallsPerSecond;
      ctx.targets.push({
        name: `panel at 50 concurrent: ≥ ${TARGET_PEER_FACTOR} × the LangGraph peer's calls/s`,
        figure: `${fmt(panel.concurrentCallsPerSecond, 1)} / ${fmt(peer.concurrentCallsPerSecond, 1)} = ${fmt(factor)} ×`,
        met: factor >= TARGET_PEER_FACTOR,
      });
    }
    if (panel && dbos) {
      const factor = panel.concurrentCallsPerSecond / dbos.concurrentCallsPerSecond;
      ctx.targets.push({
        name: `panel at 50 concurrent: ≥ ${TARGET_DBOS_FACTOR} × the DBOS peer's calls/s`,
        figure: `${fmt(panel.concurrentCallsPerSecond, 1)} / ${fmt(dbos.concurrentCallsPerSecond, 1)} = ${fmt(factor)} ×`,
        met: factor >= TARGET_DBOS_FACTOR,
      });
    }

    const complaints = services.map((s) => `${s.name} ${s.output().split('\n').filter((l) => /\b(WARN|ERROR)\b/.test(l)).length}`);
    log();
    log(`service log lines at WARN or ERROR (retries, stale jobs): ${complaints.join(', ')}`);
    log(`load average at the end (1, 5, 15 min): ${load()} (other work on the machine shares its ${cpus().length} cores with the figures)`);
    log();
    log('targets:');
    for (const t of ctx.targets) log(`  ${t.met ? 'met    ' : 'NOT met'}  ${t.name}: ${t.figure}`);
    for (const f of ctx.failures) log(`broken: ${f}`);
    if (ctx.failures.length) process.stderr.write(services.map((s) => `--- ${s.name}\n${s.output().slice(-3000)}`).join('\n') + '\n');
    if (ratio !== null) log(`ratio ${fmt(ratio)}`);
    return ctx.failures.length ? 1 : 0;
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).stack ?? e}\n`);
    for (const s of services) process.stderr.write(`--- ${s.name}\n${s.output().slice(-3000)}\n`);
    return 1;
  } finally {
    await cleanUp();
  }
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    process.stderr.write(`bench: ${e.stack ?? e}\n`);
    process.exit(1);
  },
);
