/**
 * How a peer of the panel shape is measured (the LangGraph and DBOS phases alike): warm-up, one
 * run after another, then many at once, with the CPU of this process and of the peer's Postgres
 * backends per agent call and what Postgres did per call, printed in one form so the two compare.
 */
import type { Pool } from 'pg';
import { BenchContext, cpuLine, fmt, log, measureCpu } from './bench-context';
import { PEER_CALLS_PER_RUN } from './peer-replies';
import { describePgActivity, pgActivity } from './pg-activity';

/** A peer under test: runs the panel shape for each id, and counts the checkpoints it wrote for them. */
export interface PanelPeer {
  run(ids: string[]): Promise<void>;
  checkpoints(ids: string[]): Promise<number>;
}

export interface PeerMeasurement {
  /** The phase's name: the log prefix and the CPU lines' label (`peer`, `dbos`). */
  phase: string;
  /** What one run is called by the peer (`threads`, `workflows`). */
  runs: string;
  /** The phase's heading, after `== <phase> phase (`. */
  heading: string;
  /** The line under the heading: its pool and store, then "<n> checkpoints per run". */
  store: (checkpointsPerRun: string) => string;
  /** The peer's own CPU: this process and the Postgres backends whose name it gives. */
  side: (name: string) => boolean;
  /** Where its rows go, for the Postgres counters (and a database besides the bench's, for the CPU). */
  stats: { pool: Pool; database: string; ownDatabase?: boolean };
  counts: { warmup: number; sequential: number; concurrent: number };
}

export async function measurePeer(ctx: BenchContext, peer: PanelPeer, m: PeerMeasurement): Promise<{ concurrentCallsPerSecond: number }> {
  const { warmup, sequential, concurrent } = m.counts;
  const extraDatabases = m.stats.ownDatabase ? [m.stats.database] : [];
  const ids = (phase: string, n: number) => Array.from({ length: n }, (_, i) => `${phase}-${i}`);
  const timed = async (work: () => Promise<void>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };
  log(`bench: ${m.phase}: warming up (${warmup} ${m.runs}), then ${sequential} one after another, then ${concurrent} at once`);
  for (const id of ids('warm', warmup)) await peer.run([id]);
  const seqIds = ids('seq', sequential);
  const [seqMs, seqCpu] = await measureCpu(
    ctx,
    { bench: process.pid },
    () =>
      timed(async () => {
        for (const id of seqIds) await peer.run([id]);
      }),
    extraDatabases,
  );
  const concIds = ids('conc', concurrent);
  const pgBefore = await pgActivity(m.stats.pool, m.stats.database);
  const [concMs, concCpu] = await measureCpu(ctx, { bench: process.pid }, () => timed(() => peer.run(concIds)), extraDatabases);
  const pgAfter = await pgActivity(m.stats.pool, m.stats.database);
  const checkpoints = await peer.checkpoints(concIds);

  const seqCalls = sequential * PEER_CALLS_PER_RUN;
  const concCalls = concurrent * PEER_CALLS_PER_RUN;
  const concRate = concCalls / (concMs / 1000);
  log();
  log(`== ${m.phase} phase (${m.heading})`);
  log(m.store(fmt(checkpoints / concurrent, 1)));
  log(`sequential (${sequential} ${m.runs}, ${seqCalls} calls): ${fmt(seqCalls / (seqMs / 1000), 1)} calls/s`);
  log(`concurrent (${concurrent} ${m.runs}, ${concCalls} calls): ${fmt(concRate, 1)} calls/s`);
  log(`CPU ms per agent call (this process, which also holds the idle floor workers, and the ${m.phase} peer's Postgres backends):`);
  log(`  ${m.phase}, sequential: ${cpuLine(seqCpu, seqCalls, m.side).line}`);
  log(`  ${m.phase}, concurrent: ${cpuLine(concCpu, concCalls, m.side).line}`);
  log(`Postgres per agent call, concurrent (pg_stat_database / pg_stat_user_tables of ${m.stats.database}):`);
  for (const line of describePgActivity(pgBefore, pgAfter, concCalls)) log(`  ${line}`);
  return { concurrentCallsPerSecond: concRate };
}
