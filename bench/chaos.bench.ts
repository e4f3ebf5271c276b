/**
 * `npm run chaos`: demo runs (replay provider, examples/dd-demo and examples/panel-demo) while
 * the infrastructure misbehaves, each phase against an undisturbed run of the same project.
 * The services run as separate processes (dist/apps/*) on a database and queue prefix of their own.
 *
 * Phases (CHAOS_PHASES, comma-separated; default kill,redis,provider):
 *   kill      N runs while a random service is kill -9'ed every CHAOS_KILL_EVERY_MS and restarted
 *   redis     N runs; mid-run, every Redis key of this prefix is deleted (Redis "forgot")
 *   postgres  N runs; mid-run, the Postgres cluster CHAOS_PG_CLUSTER (<version>/<name>) is restarted
 *             (pg_ctlcluster stop, ~10 s, start). It stops every database of that cluster: only when
 *             CHAOS_POSTGRES=1 (scripts/chaos.sh then runs the whole script on a cluster of its own),
 *             and with CHAOS_POSTGRES_DRY_RUN=1 the phase runs with the restart only printed.
 *   provider  N runs; the provider-worker is kill -9'ed while calls are running, then restarted
 *
 * Figures per phase: runs done / total, runs with event gaps, records not intact (GET /verify), duplicate calls (completed calls
 * beyond the undisturbed run's), runs over their caps, runs whose verdict differs from the
 * undisturbed run's. Exit 1 when any figure is off.
 *
 * Knobs: CHAOS_RUNS (10), CHAOS_LATENCY_MS (1000), CHAOS_KILL_FOR_MS (30000), CHAOS_KILL_EVERY_MS (4000),
 * CHAOS_RUN_TIMEOUT_MS (600000), CHAOS_SHORT=1 (4 runs, 15 s of kills that spare the provider-worker
 * — the provider phase covers it —: a few minutes, for CI).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { Pool } from 'pg';
import { parse as parseYaml } from 'yaml';
import { createTestDatabase, runMigrations } from '@roundtable/persistence';
import { deleteRedisPrefix, randomQueuePrefix, RunningService, ServiceName, startService, stopService, TEST_REDIS_URL } from '@roundtable/testing';
import { submitRun, waitForRuns } from './demo-runs';

const REPO = path.resolve(__dirname, '..');
const SHORT = process.env.CHAOS_SHORT === '1';
const num = (name: string, dflt: number) => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${v}: give a non-negative number`);
  return n;
};
const RUNS = num('CHAOS_RUNS', SHORT ? 4 : 10);
const LATENCY_MS = num('CHAOS_LATENCY_MS', 1000);
const KILL_FOR_MS = num('CHAOS_KILL_FOR_MS', SHORT ? 15_000 : 30_000);
const KILL_EVERY_MS = num('CHAOS_KILL_EVERY_MS', 4000);
const RUN_TIMEOUT_MS = num('CHAOS_RUN_TIMEOUT_MS', 600_000);
const POSTGRES = process.env.CHAOS_POSTGRES === '1';
const POSTGRES_DRY = process.env.CHAOS_POSTGRES_DRY_RUN === '1';
const PHASES = (process.env.CHAOS_PHASES ?? `kill,redis,${POSTGRES || POSTGRES_DRY ? 'postgres,' : ''}provider`).split(',').map((s) => s.trim()).filter(Boolean);
for (const p of PHASES) if (!['kill', 'redis', 'postgres', 'provider'].includes(p)) throw new Error(`CHAOS_PHASES: unknown phase ${p} (kill, redis, postgres, provider)`);
if (PHASES.includes('postgres') && !POSTGRES && !POSTGRES_DRY) {
  throw new Error('CHAOS_PHASES names postgres: it restarts a whole Postgres cluster, so say CHAOS_POSTGRES=1 (or CHAOS_POSTGRES_DRY_RUN=1)');
}

const log = (s: string) => process.stdout.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A project file as a client posts it: cassette absolute, replay latency set, tests as a plain subprocess. */
function projectConfig(file: string): Record<string, unknown> {
  const cfg = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown> & { providers: Record<string, { type: string; cassette?: string; latency_ms?: number }> };
  for (const p of Object.values(cfg.providers)) {
    if (p.type !== 'replay') continue;
    if (p.cassette) p.cassette = path.resolve(path.dirname(file), p.cassette);
    p.latency_ms = LATENCY_MS;
  }
  if (cfg.workflow !== 'panel') {
    cfg.test_command = "echo '7 passed in 0.01s'";
    cfg.sandbox = { runner: 'process' };
  }
  return cfg;
}

const PROJECTS = {
  build: projectConfig(path.join(REPO, 'examples/dd-demo/project.yaml')),
  panel: projectConfig(path.join(REPO, 'examples/panel-demo/project.yaml')),
};
type ProjectKind = keyof typeof PROJECTS;

interface RunFigure {
  id: string;
  kind: ProjectKind;
  status: string;
  verdict: string | null;
  haltReason: string | null;
  completedCalls: number;
  gaps: boolean;
  overCaps: boolean;
}

interface PhaseFigures {
  phase: string;
  total: number;
  done: number;
  eventGaps: number;
  duplicateCalls: number;
  overCaps: number;
  verdictsDiffer: number;
  halts: string[];
  /** Runs whose record the api does not verify intact (issue 26): each with the first problem it names. */
  notIntact: string[];
}

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

async function main(): Promise<number> {
  const cleanups: (() => unknown)[] = [];
  process.stdout.on('error', () => undefined);
  let services = new Map<ServiceName, RunningService>();
  try {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    await runMigrations(db.url);
    const redis = new IORedis(TEST_REDIS_URL);
    cleanups.push(() => redis.disconnect());
    const prefix = randomQueuePrefix('rt_chaos');
    cleanups.push(() => deleteRedisPrefix(redis, prefix));
    const workspaces = mkdtempSync(path.join(tmpdir(), 'rt-chaos-ws-'));
    cleanups.push(() => rmSync(workspaces, { recursive: true, force: true }));
    const pg = new Pool({ connectionString: db.url, max: 3, application_name: 'roundtable-chaos' });
    pg.on('error', () => undefined); // the postgres phase closes its connections under it
    cleanups.push(() => pg.end());

    const port = await freePort();
    const base: Record<string, string> = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      NO_COLOR: '1',
      ROUNDTABLE_POLICY: process.env.ROUNDTABLE_POLICY ?? path.join(REPO, 'examples/policy/local.yaml'),
      // The reconciler on a chaos scale: a lost job is looked for after 3 s, a stuck run halted after 90 s.
      RECONCILE_MS: '2000',
      RECONCILE_RESEND_AFTER_MS: '3000',
      RECONCILE_HALT_AFTER_MS: '90000',
    };
    const envOf: Record<ServiceName, Record<string, string>> = {
      api: { ...base, PORT: String(port), RATE_LIMIT_WRITES_PER_MIN: '0' },
      orchestrator: base,
      'provider-worker': { ...base, PROVIDER_QUEUES: 'replay' },
      'test-runner': { ...base, WORKSPACE_ROOT: workspaces },
    };
    const names = Object.keys(envOf) as ServiceName[];
    cleanups.push(() => Promise.all([...services.values()].map((s) => stopService(s))));
    const start = async (name: ServiceName) => {
      // A service started while Postgres is away exits; it is started again until it stays.
      for (let i = 0; ; i++) {
        try {
          services.set(name, await startService(name, envOf[name], 60_000));
          return;
        } catch (e) {
          if (i >= 30) throw e;
          await sleep(1000);
        }
      }
    };
    const kill = async (name: ServiceName) => {
      const svc = services.get(name)!;
      const exited = new Promise((r) => svc.process.once('exit', r));
      svc.process.kill('SIGKILL');
      await exited;
    };
    await Promise.all(names.map(start));
    const api = `http://127.0.0.1:${port}`;

    // --- the undisturbed runs: what every disturbed run must end as --------------------------
    log(`chaos: undisturbed runs (replay latency ${LATENCY_MS} ms)`);
    const reference = new Map<ProjectKind, RunFigure>();
    for (const kind of Object.keys(PROJECTS) as ProjectKind[]) {
      const id = await submitRun(api, PROJECTS[kind]);
      await waitForRuns(pg, [id], RUN_TIMEOUT_MS, 200);
      const [fig] = await figuresOf(pg, [{ id, kind }]);
      if (fig.status !== 'done') throw new Error(`the undisturbed ${kind} run ended ${fig.status} (${fig.haltReason}): nothing to compare with`);
      reference.set(kind, fig);
      log(`chaos:   ${kind}: ${fig.status}, verdict ${fig.verdict}, ${fig.completedCalls} completed calls`);
    }

    const submitMix = async (n: number) =>
      Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const kind: ProjectKind = i % 2 === 0 ? 'build' : 'panel';
          return { id: await submitRun(api, PROJECTS[kind]), kind };
        }),
      );
    /** Until every run has ended or the timeout; a poll that fails (Postgres restarting under it) is polled again. */
    const waitTerminal = async (ids: string[]) => {
      const deadline = Date.now() + RUN_TIMEOUT_MS;
      for (;;) {
        try {
          return await waitForRuns(pg, ids, Math.max(0, deadline - Date.now()), 500);
        } catch (e) {
          if (Date.now() >= deadline || /did not finish within/.test((e as Error).message)) return log(`chaos:   ${(e as Error).message}`);
          await sleep(1000);
        }
      }
    };
    /** Until some agent call is running (a provider-worker mid-call). */
    const untilCallRunning = async (ids: string[]) => {
      for (let i = 0; i < 600; i++) {
        const { rows } = await pg.query(`SELECT 1 FROM agent_calls WHERE run_id = ANY($1) AND status = 'running' LIMIT 1`, [ids]);
        if (rows.length) return;
        await sleep(100);
      }
    };

    const results: PhaseFigures[] = [];
    for (const phase of PHASES) {
      const started = Date.now();
      log(`chaos: phase ${phase}: ${RUNS} runs`);
      const runs = await submitMix(RUNS);
      const ids = runs.map((r) => r.id);
      const done = waitTerminal(ids);
      if (phase === 'kill') {
        const victims = SHORT ? names.filter((n) => n !== 'provider-worker') : names;
        let kills = 0;
        const until = Date.now() + KILL_FOR_MS;
        while (Date.now() < until) {
          await sleep(KILL_EVERY_MS * (0.5 + Math.random()));
          const name = victims[Math.floor(Math.random() * victims.length)];
          await kill(name);
          await start(name);
          kills++;
        }
        log(`chaos:   ${kills} kills in ${KILL_FOR_MS} ms`);
      } else if (phase === 'redis') {
        await sleep(3000);
        log(`chaos:   deleted ${await deleteRedisPrefix(redis, prefix)} keys of prefix ${prefix}`);
        await sleep(4000);
        log(`chaos:   deleted ${await deleteRedisPrefix(redis, prefix)} keys of prefix ${prefix}`);
      } else if (phase === 'postgres') {
        await untilCallRunning(ids);
        restartPostgres();
      } else if (phase === 'provider') {
        await untilCallRunning(ids);
        await kill('provider-worker');
        log('chaos:   provider-worker killed mid-call');
        await sleep(1000);
        await start('provider-worker');
      }
      await done;
      const figs = await figuresOf(pg, runs);
      const fig = { ...summarise(phase, figs, reference), notIntact: await recordsNotIntact(api, runs.map((r) => r.id)) };
      results.push(fig);
      log(
        `chaos:   ${phase}: ${fig.done}/${fig.total} done, ${fig.eventGaps} with event gaps, ${fig.duplicateCalls} duplicate calls, ` +
          `${fig.overCaps} over caps, ${fig.verdictsDiffer} verdicts unlike the undisturbed run's, ${fig.notIntact.length} records not intact ` +
          `(${Math.round((Date.now() - started) / 1000)} s)`,
      );
      for (const h of fig.halts) log(`chaos:     ${h}`);
      for (const v of fig.notIntact) log(`chaos:     record ${v}`);
    }

    const off = results.filter((f) => f.done !== f.total || f.eventGaps || f.duplicateCalls || f.overCaps || f.verdictsDiffer || f.notIntact.length);
    log(`chaos: ${results.length - off.length} passed, ${off.length} failed`);
    if (off.length) {
      for (const s of services.values()) log(`--- ${s.name} (last lines)\n${s.output().slice(-2500)}`);
    }
    return off.length ? 1 : 0;
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve().then(c).catch((e: Error) => log(`chaos: cleanup: ${e.message}`));
    services = new Map();
  }
}

/**
 * pg_ctlcluster stop, ~10 s, start (Debian's cluster tools) of CHAOS_PG_CLUSTER (`<version>/<name>`,
 * default the first version's `main`; scripts/chaos.sh gives the phase a cluster of its own, so
 * nothing else on the machine loses its database); printed only under CHAOS_POSTGRES_DRY_RUN=1.
 */
function restartPostgres(): void {
  const [version, name] = (process.env.CHAOS_PG_CLUSTER ?? `${readdirSync('/etc/postgresql')[0]}/main`).split('/');
  const args = ['--skip-systemctl-redirect', version, name];
  if (!POSTGRES || POSTGRES_DRY) {
    log(`chaos:   dry run: would run pg_ctlcluster ${args.join(' ')} stop; sleep 10; pg_ctlcluster ${args.join(' ')} start`);
    return;
  }
  log(`chaos:   postgres stopped at ${new Date().toISOString()}`);
  execFileSync('pg_ctlcluster', [...args, 'stop'], { stdio: 'inherit' });
  execFileSync('sleep', ['10']);
  execFileSync('pg_ctlcluster', [...args, 'start'], { stdio: 'inherit' });
  log(`chaos:   postgres started again at ${new Date().toISOString()}`);
}

async function figuresOf(pg: Pool, runs: { id: string; kind: ProjectKind }[]): Promise<RunFigure[]> {
  const ids = runs.map((r) => r.id);
  const { rows } = await pg.query<{
    id: string;
    status: string;
    verdict: string | null;
    halt_reason: string | null;
    completed: string;
    events: string;
    max_seq: string | null;
    calls: string;
    tokens: string;
    max_calls: string | null;
    max_tokens: string | null;
  }>(
    `SELECT r.id, r.status, r.verdict, r.halt_reason,
            (SELECT count(*) FROM agent_calls c WHERE c.run_id = r.id AND c.status = 'completed') AS completed,
            (SELECT count(*) FROM run_events e WHERE e.run_id = r.id) AS events,
            (SELECT max(sequence) FROM run_events e WHERE e.run_id = r.id) AS max_seq,
            coalesce((SELECT sum(calls) FROM usage_by_provider u WHERE u.run_id = r.id), 0) AS calls,
            coalesce((SELECT sum(input_tokens + output_tokens) FROM usage_by_provider u WHERE u.run_id = r.id), 0) AS tokens,
            r.config -> 'budget' ->> 'max_calls' AS max_calls, r.config -> 'budget' ->> 'max_tokens' AS max_tokens
       FROM runs r WHERE r.id = ANY($1)`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return runs.map(({ id, kind }) => {
    const r = byId.get(id)!;
    const over = (used: string, cap: string | null) => cap !== null && Number(used) > Number(cap);
    return {
      id,
      kind,
      status: r.status,
      verdict: r.verdict,
      haltReason: r.halt_reason,
      completedCalls: Number(r.completed),
      gaps: Number(r.events) !== Number(r.max_seq ?? 0),
      overCaps: over(r.calls, r.max_calls) || over(r.tokens, r.max_tokens),
    };
  });
}

/** Each run's record as the api recomputes it (GET /v1/runs/:id/verify): those not intact, with what it names. */
async function recordsNotIntact(api: string, ids: string[]): Promise<string[]> {
  const off: string[] = [];
  for (const id of ids) {
    const res = await fetch(`${api}/v1/runs/${encodeURIComponent(id)}/verify`);
    const verdict = res.ok ? ((await res.json()) as { intact: boolean; kind?: string; at?: unknown; detail?: string }) : null;
    if (!verdict) off.push(`${id}: GET /verify answered HTTP ${res.status}`);
    else if (!verdict.intact) off.push(`${id}: ${verdict.kind} at ${JSON.stringify(verdict.at)}: ${verdict.detail}`);
  }
  return off;
}

function summarise(phase: string, figs: RunFigure[], reference: Map<ProjectKind, RunFigure>): Omit<PhaseFigures, 'notIntact'> {
  const ref = (f: RunFigure) => reference.get(f.kind)!;
  return {
    phase,
    total: figs.length,
    done: figs.filter((f) => f.status === 'done').length,
    eventGaps: figs.filter((f) => f.gaps).length,
    duplicateCalls: figs.reduce((n, f) => n + Math.max(0, f.completedCalls - ref(f).completedCalls), 0),
    overCaps: figs.filter((f) => f.overCaps).length,
    verdictsDiffer: figs.filter((f) => f.verdict !== ref(f).verdict).length,
    halts: figs.filter((f) => f.status !== 'done').map((f) => `${f.id} (${f.kind}) ${f.status}: ${f.haltReason ?? ''}`),
  };
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    process.stderr.write(`chaos: ${e.stack ?? e.message}\n`);
    process.exit(1);
  },
);
