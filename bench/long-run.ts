/**
 * The long phase: a panel of BENCH_LONG_ROUNDS debate rounds (10: 61 calls, 62 orchestrator
 * steps), BENCH_LONG_RUNS times one after another, and the orchestrator's CPU and its Postgres
 * backends' CPU over the run's first 20 steps against its last 20. A step that costs more as
 * the run grows (state rebuilt from every row, a context pack of every turn) shows here.
 *
 * How a window is cut: the replay provider answers after BENCH_LONG_LATENCY_MS (25), so between
 * two debate steps the orchestrator sits idle for that long. While a run goes, the bench
 * samples the orchestrator's and its backends' CPU every few ms (the scheduler's nanosecond
 * count, cpu-usage.ts). After the run, each step's time is its applied_events.created_at
 * (the step transaction's BEGIN, Postgres now()); the cut between step k and k+1 is the sample
 * nearest the midpoint of their BEGINs, which falls in that idle gap. Steps 20|21 and
 * (N-20)|(N-19) are both debate turns, one after another, so the cuts are clean. The first
 * window starts before the run is posted, the last ends once the run is terminal and the
 * orchestrator has been quiet for a moment.
 */
import path from 'node:path';
import { BenchContext, fmt, intEnv, log } from './bench-context';
import { CpuSnapshot, cpuSnapshot } from './cpu-usage';
import { submitRun, waitForRuns } from './demo-runs';
import { panelCalls, panelProjectConfig, writeLongCassette } from './panel-runs';

const ROUNDS = intEnv('BENCH_LONG_ROUNDS', 10);
const RUNS = intEnv('BENCH_LONG_RUNS', 3);
const LATENCY_MS = intEnv('BENCH_LONG_LATENCY_MS', 25);
/** Long runs made first and not measured: when this phase runs alone, the first would measure the JIT. */
const WARMUP_RUNS = intEnv('BENCH_LONG_WARMUP_RUNS', 1);
const SAMPLE_EVERY_MS = 4;
const WINDOW = 20;
const SETTLE_MS = 300;
/** The profile's groups of steps: CPU per step for steps 1–10, 11–20, … (cuts only between two debate turns). */
const GROUP = 10;
export const TARGET_GROWTH = 0.2;

interface Sample {
  at: number;
  snap: CpuSnapshot;
}

const ORCHESTRATOR_APP = 'roundtable-orchestrator';

/** Orchestrator process CPU and its backends' CPU, ms, between two samples. */
function between(a: Sample, b: Sample): { process: number; postgres: number } {
  const proc = (s: Sample) => s.snap.processes.get('orchestrator') ?? 0;
  let postgres = 0;
  for (const [pid, { app, ms }] of b.snap.backends) {
    if (app !== ORCHESTRATOR_APP) continue;
    postgres += ms - (a.snap.backends.get(pid)?.ms ?? 0);
  }
  return { process: proc(b) - proc(a), postgres };
}

const nearest = (samples: Sample[], at: number): Sample =>
  samples.reduce((best, s) => (Math.abs(s.at - at) < Math.abs(best.at - at) ? s : best), samples[0]);

export async function longPhase(ctx: BenchContext): Promise<void> {
  const cassette = path.join(ctx.scratchDir, `panel-${ROUNDS}-rounds.cassette.yaml`);
  writeLongCassette(cassette, ROUNDS);
  const config = panelProjectConfig({ cassette, debateRounds: ROUNDS, latencyMs: LATENCY_MS });
  const orchestrator = ctx.services.find((s) => s.name === 'orchestrator');
  const pids = { orchestrator: orchestrator?.process.pid };
  const sample = async (): Promise<Sample> => ({ at: Date.now(), snap: await cpuSnapshot(pids, ctx.pg, ctx.db.name) });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  log(`bench: long: warming up (${WARMUP_RUNS} run)`);
  for (let i = 0; i < WARMUP_RUNS; i++) await waitForRuns(ctx.pg, [await submitRun(ctx.api, config)], 600_000, 50);
  log(`bench: long: ${RUNS} panel runs of ${ROUNDS} debate rounds (${panelCalls(ROUNDS)} calls, replay latency ${LATENCY_MS} ms), one after another`);
  const first = { process: 0, postgres: 0, steps: 0, wallMs: 0 };
  const last = { process: 0, postgres: 0, steps: 0, wallMs: 0 };
  let stepsPerRun = 0;
  /** The debate alone: its first and last WINDOW turns' CPU ms (orchestrator + its backends), summed over the runs. */
  const debate = { first: { process: 0, postgres: 0 }, last: { process: 0, postgres: 0 }, steps: 0 };
  /** Per group of GROUP steps: CPU ms (orchestrator + its backends) and steps, summed over the runs. */
  const groups: { ms: number; steps: number }[] = [];
  for (let r = 0; r < RUNS; r++) {
    const samples: Sample[] = [await sample()];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await sleep(SAMPLE_EVERY_MS);
        samples.push(await sample());
      }
    })();
    const id = await submitRun(ctx.api, config);
    await waitForRuns(ctx.pg, [id], 600_000, 50);
    await sleep(SETTLE_MS);
    sampling = false;
    await sampler;
    samples.push(await sample());

    const { rows } = await ctx.pg.query<{ at: string }>(
      `SELECT extract(epoch FROM created_at) * 1000 AS at FROM applied_events WHERE run_id = $1 ORDER BY created_at, event_key`,
      [id],
    );
    const { rows: run } = await ctx.pg.query<{ status: string; calls: string }>(
      `SELECT status, (SELECT count(*) FROM agent_calls c WHERE c.run_id = r.id) AS calls FROM runs r WHERE id = $1`,
      [id],
    );
    const at = rows.map((x) => Number(x.at));
    const n = at.length;
    if (run[0].status !== 'done' || Number(run[0].calls) !== panelCalls(ROUNDS) || n < 2 * WINDOW + 1) {
      ctx.failures.push(`long run ${id}: ${run[0].status} with ${run[0].calls} calls and ${n} steps (wanted done, ${panelCalls(ROUNDS)} calls)`);
      return;
    }
    stepsPerRun = n;
    const cutFirst = nearest(samples, (at[WINDOW - 1] + at[WINDOW]) / 2);
    const cutLast = nearest(samples, (at[n - WINDOW - 1] + at[n - WINDOW]) / 2);
    const a = between(samples[0], cutFirst);
    const b = between(cutLast, samples[samples.length - 1]);
    first.process += a.process;
    first.postgres += a.postgres;
    first.steps += WINDOW;
    first.wallMs += at[WINDOW - 1] - at[0];
    last.process += b.process;
    last.postgres += b.postgres;
    last.steps += WINDOW;
    last.wallMs += at[n - 1] - at[n - WINDOW];
    // The profile: cuts after step 10, 20, … while both sides of the cut are debate turns
    // (step 7 is the first turn, the last five steps before the moderator are parallel re-votes).
    const cuts = [samples[0]];
    for (let k = GROUP; k + 1 <= n - 6; k += GROUP) cuts.push(nearest(samples, (at[k - 1] + at[k]) / 2));
    cuts.push(samples[samples.length - 1]);
    // The debate alone, so that the windows' make-up (start and verdicts first, re-votes and
    // moderator last) drops out: steps run.start, 5 verdicts, then 5 × ROUNDS turns one after
    // another. Every cut here lies between two steps made one after another.
    const firstTurn = 1 + 5;
    const turns = 5 * ROUNDS;
    if (turns >= 2 * WINDOW) {
      const cut = (k: number) => nearest(samples, (at[k - 1] + at[k]) / 2); // between step index k-1 and k (0-based)
      const add = (into: { process: number; postgres: number }, x: { process: number; postgres: number }) => {
        into.process += x.process;
        into.postgres += x.postgres;
      };
      add(debate.first, between(cut(firstTurn), cut(firstTurn + WINDOW)));
      add(debate.last, between(cut(firstTurn + turns - WINDOW), cut(firstTurn + turns)));
      debate.steps += WINDOW;
    }
    for (let g = 0; g + 1 < cuts.length; g++) {
      const used = between(cuts[g], cuts[g + 1]);
      const steps = g + 2 < cuts.length ? GROUP : n - GROUP * g;
      groups[g] = { ms: (groups[g]?.ms ?? 0) + used.process + used.postgres, steps: (groups[g]?.steps ?? 0) + steps };
    }
  }

  const per = (w: typeof first) => ({ process: w.process / w.steps, postgres: w.postgres / w.steps, total: (w.process + w.postgres) / w.steps });
  const f = per(first);
  const l = per(last);
  const growth = l.total / f.total - 1;
  log();
  log(`== long phase (panel, ${ROUNDS} debate rounds, ${stepsPerRun} orchestrator steps a run, ${RUNS} runs)`);
  log('CPU ms per orchestrator step (orchestrator process + its Postgres backends):');
  log(`  first ${WINDOW} steps: ${fmt(f.total)} = orchestrator ${fmt(f.process)} + postgres (${ORCHESTRATOR_APP}) ${fmt(f.postgres)}`);
  log(`  last ${WINDOW} steps:  ${fmt(l.total)} = orchestrator ${fmt(l.process)} + postgres (${ORCHESTRATOR_APP}) ${fmt(l.postgres)}`);
  log(
    `wall ms per step, BEGIN to BEGIN (replay latency ${LATENCY_MS} ms included; the first window holds 5 parallel verdicts): ` +
      `first ${fmt(first.wallMs / (first.steps - RUNS))}, last ${fmt(last.wallMs / (last.steps - RUNS))}`,
  );
  log(
    `CPU ms per step by position (orchestrator + its backends; groups of ${GROUP}, the last to the end): ` +
      groups.map((g, i) => `${i * GROUP + 1}–${i + 1 < groups.length ? (i + 1) * GROUP : stepsPerRun} ${fmt(g.ms / g.steps)}`).join(', '),
  );
  if (debate.steps) {
    const pct = (a: number, b: number) => `${b >= a ? '+' : ''}${fmt((b / a - 1) * 100, 0)} %`;
    const f = debate.first;
    const l = debate.last;
    const n = debate.steps;
    log(
      `the debate alone (not the target's windows, which hold other steps too), CPU ms per turn step, first ${WINDOW} → last ${WINDOW} turns: ` +
        `total ${fmt((f.process + f.postgres) / n)} → ${fmt((l.process + l.postgres) / n)} (${pct(f.process + f.postgres, l.process + l.postgres)}), ` +
        `orchestrator ${fmt(f.process / n)} → ${fmt(l.process / n)} (${pct(f.process, l.process)}), ` +
        `postgres ${fmt(f.postgres / n)} → ${fmt(l.postgres / n)} (${pct(f.postgres, l.postgres)})`,
    );
  }
  ctx.targets.push({
    name: `long run: last ${WINDOW} steps' CPU within ${TARGET_GROWTH * 100} % of the first ${WINDOW}'s`,
    figure: `${fmt(l.total)} / ${fmt(f.total)} ms per step = ${growth >= 0 ? '+' : ''}${fmt(growth * 100, 0)} %`,
    met: Math.abs(growth) <= TARGET_GROWTH,
  });
}
