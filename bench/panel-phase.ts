/**
 * The panel phase: examples/panel-demo (26 zero-latency replay calls, no workspace, no tests:
 * pure orchestration) one run after another, then BENCH_PANEL_CONCURRENT_RUNS at once, with
 * CPU per agent call per service process and per Postgres backend, against floor chains of the
 * same length at the same concurrency.
 */
import { addCpu, BenchContext, cpuLine, fmt, intEnv, log, measureCpu, overheadSide, servicePids } from './bench-context';
import { measureRuns, runOutcomes, submitRun, waitForRuns } from './demo-runs';
import { panelCalls, panelProjectConfig } from './panel-runs';
import { backendPids, processCpuMs } from './cpu-usage';
import { describePerUnit, writesBetween, writeSnapshot } from './write-syscalls';
import { describePgActivity, pgActivity } from './pg-activity';
import { commandStats, describeCommands } from './redis-ops';
import { percentile } from './stats';

const SEQUENTIAL_RUNS = intEnv('BENCH_PANEL_SEQUENTIAL_RUNS', 10);
const CONCURRENT_RUNS = intEnv('BENCH_PANEL_CONCURRENT_RUNS', 50);
const WARMUP_RUNS = intEnv('BENCH_PANEL_WARMUP_RUNS', 2);
const RUN_TIMEOUT_MS = 600_000;
/** With the services under cpu-profile-preload.js: profiles of the concurrent runs are written here. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** SIGUSR2 ends a Node process that has no handler for it: signal only services that load the preload. */
const PROFILING = !!PROFILE_DIR && (process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').includes('cpu-profile-preload');

/** Starts, then stops and writes, the services' CPU profiles (cpu-profile-preload.js); a no-op unless BENCH_PROFILE_DIR is set and BENCH_SERVICE_NODE_OPTIONS requires the preload. */
async function toggleProfiles(ctx: BenchContext): Promise<void> {
  if (!PROFILING) return;
  for (const s of ctx.services) s.process.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 1000));
}

/** Issue 27 (issue 13's was 5). */
export const TARGET_CPU_MS_PER_CALL = 4;
export const TARGET_FLOOR_SHARE = 0.5;

export interface PanelFigures {
  concurrentCallsPerSecond: number;
  concurrentCpuMsPerCall: number;
}

export async function panelPhase(ctx: BenchContext): Promise<PanelFigures> {
  const config = panelProjectConfig();
  const calls = panelCalls(3);
  const sequential = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = await submitRun(ctx.api, config);
      ids.push(id);
      await waitForRuns(ctx.pg, [id], RUN_TIMEOUT_MS, 20);
    }
    return ids;
  };

  log(`bench: panel: warming up (${WARMUP_RUNS} runs), then ${SEQUENTIAL_RUNS} runs one after another, then ${CONCURRENT_RUNS} at once`);
  const warmIds = await sequential(WARMUP_RUNS);
  const [seqIds, seqCpu] = await measureCpu(ctx, servicePids(ctx), () => sequential(SEQUENTIAL_RUNS));
  await toggleProfiles(ctx);
  const pgBefore = await pgActivity(ctx.pg, ctx.db.name);
  const redisBefore = await commandStats(ctx.redis);
  const redisCpuBefore = processCpuMs(ctx.redisPid);
  let connections = new Map<string, number>();
  // The Postgres backends by pid, named by their pool: the pools are full once the warm-up ran.
  const services = servicePids(ctx);
  const writers = async () => ({
    ...services,
    'redis-server': ctx.redisPid,
    ...Object.fromEntries([...(await backendPids(ctx.pg, ctx.db.name))].map(([pid, app]) => [`postgres (${app}) ${pid}`, pid])),
  });
  const writesBefore = writeSnapshot(await writers());
  const [concIds, concCpu] = await measureCpu(ctx, servicePids(ctx), async () => {
    const ids = await Promise.all(Array.from({ length: CONCURRENT_RUNS }, () => submitRun(ctx.api, config)));
    await waitForRuns(ctx.pg, ids, RUN_TIMEOUT_MS, 100);
    // While the services' pools are still as deep as the load made them.
    connections = countBy(await backendPids(ctx.pg, ctx.db.name));
    return ids;
  });
  const writesAfter = writeSnapshot(await writers());
  const redisCpuAfter = processCpuMs(ctx.redisPid);
  const redisAfter = await commandStats(ctx.redis);
  const pgAfter = await pgActivity(ctx.pg, ctx.db.name);
  await toggleProfiles(ctx);
  log(`bench: panel: ${CONCURRENT_RUNS} floor chains of ${calls} steps at once`);
  const floorCpu = new Map<string, number>();
  const floorWritesBefore = writeSnapshot({ bench: process.pid });
  const [floorWallMs, fc] = await measureCpu(ctx, { bench: process.pid }, () => ctx.floor.run('panel-conc', CONCURRENT_RUNS, calls, true));
  const floorWritesAfter = writeSnapshot({ bench: process.pid });
  addCpu(floorCpu, fc);
  const floorSteps = (await ctx.floor.samples('panel-conc')).length;

  const outcomes = await runOutcomes(ctx.api, ctx.pg, [...warmIds, ...seqIds, ...concIds]);
  const off = outcomes.filter((o) => o.status !== 'done' || o.calls.length !== calls);
  const seq = await measureRuns(ctx.pg, seqIds);
  const conc = await measureRuns(ctx.pg, concIds);
  const seqRate = seq.calls / (seq.sumRunMs / 1000);
  const concRate = conc.calls / (conc.spanMs / 1000);
  const floorRate = floorSteps / (floorWallMs / 1000);
  const seqLine = cpuLine(seqCpu, seq.calls, overheadSide);
  const concLine = cpuLine(concCpu, conc.calls, overheadSide);
  const floorLine = cpuLine(floorCpu, floorSteps, (n) => n === 'bench' || n.includes('roundtable-bench-floor'));

  log();
  log('== panel phase (examples/panel-demo, replay at zero latency, 26 calls a run, no workspace or tests)');
  log(`runs: ${outcomes.length - off.length} of ${outcomes.length} ended done with ${calls} calls${off.length ? `; off: ${off.map((o) => `${o.id} ${o.status} ${o.haltReason ?? ''} ${o.calls.length} calls`).join('; ')}` : ''}`);
  log(`sequential (${SEQUENTIAL_RUNS} runs, ${seq.calls} calls): ${fmt(seqRate, 1)} calls/s, per call p50 ${fmt(percentile(seq.samples, 50))} ms, p99 ${fmt(percentile(seq.samples, 99))} ms`);
  log(`concurrent (${CONCURRENT_RUNS} runs, ${conc.calls} calls): ${fmt(concRate, 1)} calls/s, per call p50 ${fmt(percentile(conc.samples, 50))} ms, p99 ${fmt(percentile(conc.samples, 99))} ms`);
  log(`floor, ${CONCURRENT_RUNS} chains of ${calls} at once: ${fmt(floorRate, 1)} steps/s`);
  log('CPU ms per agent call (services and their Postgres backends ÷ agent calls) / per floor step:');
  log(`  panel, sequential: ${seqLine.line}`);
  log(`  panel, concurrent: ${concLine.line}`);
  log(`  floor, concurrent: ${floorLine.line}`);
  log(`orchestrator steps per agent call: ${fmt(conc.orchestratorSteps / conc.calls)}`);
  log('Postgres per agent call, concurrent (pg_stat_database / pg_stat_user_tables of the scratch database):');
  for (const line of describePgActivity(pgBefore, pgAfter, conc.calls)) log(`  ${line}`);
  log(`Postgres connections at the end of the concurrent runs, by application_name: ${[...connections].map(([app, n]) => `${app} ${n}`).join(', ')}`);
  if (redisCpuBefore !== null && redisCpuAfter !== null) log(`redis-server CPU ms per agent call, concurrent (the whole server): ${fmt((redisCpuAfter - redisCpuBefore) / conc.calls)}`);
  log(`Redis commands per agent call, concurrent (server-wide; EVALSHA's own commands are counted too): ${describeCommands(redisBefore, redisAfter, conc.calls).line}`);
  // Postgres backends answer with send(), which syscw does not count: their figure is WAL and data file writes.
  log(`write system calls per agent call, concurrent (/proc/<pid>/io syscw; a Postgres backend's are its file writes, not its replies): ${describePerUnit(writesBetween(writesBefore, writesAfter, 'syscw', { group: poolOf }), conc.calls)}`);
  log(`KiB the services wrote per agent call, concurrent (wchar: to Postgres, Redis and logs): ${describePerUnit(writesBetween(writesBefore, writesAfter, 'wchar', { keep: (name) => name in services }), conc.calls, 1024)}`);
  log(`per floor step (the bench process, both ends of its hop and its transaction): ${describePerUnit(writesBetween(floorWritesBefore, floorWritesAfter, 'syscw'), floorSteps)} write system calls, ${describePerUnit(writesBetween(floorWritesBefore, floorWritesAfter, 'wchar'), floorSteps, 1024)} KiB`);

  ctx.targets.push(
    { name: `panel at ${CONCURRENT_RUNS} concurrent: CPU per agent call, all services and their Postgres backends ≤ ${TARGET_CPU_MS_PER_CALL} ms`, figure: `${fmt(concLine.total)} ms`, met: concLine.total <= TARGET_CPU_MS_PER_CALL },
    {
      name: `panel at ${CONCURRENT_RUNS} concurrent: ≥ ${TARGET_FLOOR_SHARE * 100} % of the floor's steps/s`,
      figure: `${fmt(concRate, 1)} / ${fmt(floorRate, 1)} = ${fmt((concRate / floorRate) * 100, 0)} %`,
      met: concRate / floorRate >= TARGET_FLOOR_SHARE,
    },
  );
  if (off.length) ctx.failures.push(`${off.length} panel run(s) did not end done with ${calls} calls`);
  return { concurrentCallsPerSecond: concRate, concurrentCpuMsPerCall: concLine.total };
}

/** A backend's snapshot name, `postgres (app) pid`, as its pool's: `postgres (app)`. */
const poolOf = (name: string): string => name.replace(/ \d+$/, '');

function countBy(pids: Map<number, string>): Map<string, number> {
  const n = new Map<string, number>();
  for (const app of pids.values()) n.set(app, (n.get(app) ?? 0) + 1);
  return n;
}
