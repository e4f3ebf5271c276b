/**
 * The panel500 phase: BENCH_PANEL500_RUNS (500) panel demo runs submitted at once, waited for
 * until every one is terminal, with the resident memory of every service process sampled every
 * 100 ms (rss.ts): what the orchestrator holds with that many runs in flight. Also the calls/s,
 * the CPU per call and the Redis commands per call at that depth, for the capacity model.
 */
import { BenchContext, cpuLine, fmt, intEnv, log, measureCpu, overheadSide, servicePids } from './bench-context';
import { processCpuMs } from './cpu-usage';
import { measureRuns, runOutcomes, submitRun, waitForRuns } from './demo-runs';
import { panelCalls, panelProjectConfig } from './panel-runs';
import { describePgActivity, pgActivity } from './pg-activity';
import { commandStats, describeCommands } from './redis-ops';
import { highWaterMb, sampleRss } from './rss';

const RUNS = intEnv('BENCH_PANEL500_RUNS', 500);
const TIMEOUT_MS = intEnv('BENCH_PANEL500_TIMEOUT_S', 1200) * 1000;
const RSS_SAMPLE_MS = 100;
export const TARGET_ORCHESTRATOR_PEAK_RSS_MB = 200;

export async function panel500Phase(ctx: BenchContext): Promise<void> {
  const config = panelProjectConfig();
  const calls = panelCalls(3);
  const pids = servicePids(ctx);
  const withBench: Record<string, number | undefined> = { ...pids, bench: process.pid };
  log(`bench: panel500: ${RUNS} panel runs submitted at once, RSS of every service sampled every ${RSS_SAMPLE_MS} ms`);
  const pgBefore = await pgActivity(ctx.pg, ctx.db.name);
  const redisBefore = await commandStats(ctx.redis);
  const redisCpuBefore = processCpuMs(ctx.redisPid);
  const sampler = sampleRss(withBench, RSS_SAMPLE_MS);
  let submitMs = 0;
  const [ids, cpu] = await measureCpu(ctx, pids, async () => {
    const started = performance.now();
    const submitted = await Promise.all(Array.from({ length: RUNS }, () => submitRun(ctx.api, config)));
    submitMs = performance.now() - started;
    await waitForRuns(ctx.pg, submitted, TIMEOUT_MS, 500);
    return submitted;
  });
  const peaks = sampler.stop();
  const redisCpuAfter = processCpuMs(ctx.redisPid);
  const redisAfter = await commandStats(ctx.redis);
  const pgAfter = await pgActivity(ctx.pg, ctx.db.name);

  const outcomes = await runOutcomes(ctx.api, ctx.pg, ids);
  const done = outcomes.filter((o) => o.status === 'done' && o.calls.length === calls);
  const m = await measureRuns(ctx.pg, ids);
  const rate = m.calls / (m.spanMs / 1000);
  const line = cpuLine(cpu, m.calls, overheadSide);
  const orchestratorPeak = peaks.peakMb.get('orchestrator') ?? NaN;

  log();
  log(`== panel500 phase (${RUNS} panel demo runs at once, ${calls} zero-latency replay calls each)`);
  log(`runs: ${done.length} of ${RUNS} ended done with ${calls} calls; submitted in ${fmt(submitMs / 1000, 1)} s, all terminal after ${fmt(m.spanMs / 1000, 1)} s (first created → last finished)`);
  log(`${m.calls} calls: ${fmt(rate, 1)} calls/s`);
  log(`peak RSS, MB (VmRSS sampled every ${RSS_SAMPLE_MS} ms, ${peaks.samples} samples; at the phase's start → peak; VmHWM since the process started):`);
  for (const [name, peak] of peaks.peakMb) {
    log(`  ${name.padEnd(16)} ${fmt(peaks.startMb.get(name) ?? NaN, 1)} → ${fmt(peak, 1)}  (VmHWM ${fmt(highWaterMb(withBench[name]) ?? NaN, 1)})`);
  }
  log(`CPU ms per agent call (services and their Postgres backends): ${line.line}`);
  if (redisCpuBefore !== null && redisCpuAfter !== null) log(`redis-server CPU ms per agent call (the whole server): ${fmt((redisCpuAfter - redisCpuBefore) / m.calls)}`);
  log(`Redis commands per agent call (server-wide; EVALSHA's own commands are counted too): ${describeCommands(redisBefore, redisAfter, m.calls).line}`);
  log('Postgres per agent call (pg_stat_database / pg_stat_user_tables of the scratch database):');
  for (const l of describePgActivity(pgBefore, pgAfter, m.calls)) log(`  ${l}`);

  ctx.targets.push(
    { name: `panel500: all ${RUNS} runs done with ${calls} calls`, figure: `${done.length} of ${RUNS}`, met: done.length === RUNS },
    {
      name: `panel500: orchestrator peak RSS < ${TARGET_ORCHESTRATOR_PEAK_RSS_MB} MB`,
      figure: `${fmt(orchestratorPeak, 1)} MB`,
      met: orchestratorPeak < TARGET_ORCHESTRATOR_PEAK_RSS_MB,
    },
  );
  if (done.length !== RUNS) ctx.failures.push(`${RUNS - done.length} panel500 run(s) did not end done with ${calls} calls`);
}
