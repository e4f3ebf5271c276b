/**
 * The dbos phase: the DBOS Transact workflow of the panel demo's shape (dbos-peer.ts) in this
 * process, its system database a second scratch database the phase creates and drops; warm-up,
 * one workflow after another, then BENCH_DBOS_CONCURRENT_RUNS at once, with the CPU of this
 * process and of DBOS's Postgres backends per agent call, printed as the LangGraph peer's are.
 */
import { createTestDatabase } from '@roundtable/persistence';
import { BenchContext, cpuLine, fmt, intEnv, log, measureCpu } from './bench-context';
import { DBOS_APPLICATION_NAME_PREFIX, DbosPeer } from './dbos-peer';
import { PANEL_CASSETTE } from './panel-runs';
import { cannedReplies, PEER_CALLS_PER_RUN } from './peer-replies';
import { describePgActivity, pgActivity } from './pg-activity';

const SEQUENTIAL_RUNS = intEnv('BENCH_DBOS_SEQUENTIAL_RUNS', 10);
const CONCURRENT_RUNS = intEnv('BENCH_DBOS_CONCURRENT_RUNS', 50);
const WARMUP_RUNS = intEnv('BENCH_DBOS_WARMUP_RUNS', 3);

export interface DbosFigures {
  concurrentCallsPerSecond: number;
}

export async function dbosPhase(ctx: BenchContext): Promise<DbosFigures> {
  const sysDb = await createTestDatabase();
  ctx.defer(() => sysDb.drop());
  try {
    const peer = await DbosPeer.start(sysDb.url, ctx.poolSize, cannedReplies(PANEL_CASSETTE));
    try {
      const ids = (phase: string, n: number) => Array.from({ length: n }, (_, i) => `${phase}-${i}`);
      log(`bench: dbos: warming up (${WARMUP_RUNS} workflows), then ${SEQUENTIAL_RUNS} one after another, then ${CONCURRENT_RUNS} at once`);
      for (const id of ids('warm', WARMUP_RUNS)) await peer.run([id]);
      const timed = async (work: () => Promise<void>) => {
        const started = performance.now();
        await work();
        return performance.now() - started;
      };
      const seqIds = ids('seq', SEQUENTIAL_RUNS);
      const [seqMs, seqCpu] = await measureCpu(
        ctx,
        { bench: process.pid },
        () =>
          timed(async () => {
            for (const id of seqIds) await peer.run([id]);
          }),
        [sysDb.name],
      );
      const concIds = ids('conc', CONCURRENT_RUNS);
      const pgBefore = await pgActivity(peer.statsPool, sysDb.name);
      const [concMs, concCpu] = await measureCpu(ctx, { bench: process.pid }, () => timed(() => peer.run(concIds)), [sysDb.name]);
      const pgAfter = await pgActivity(peer.statsPool, sysDb.name);
      const checkpoints = await peer.checkpoints(concIds);

      const peerSide = (n: string) => n === 'bench' || n.startsWith(`postgres (${DBOS_APPLICATION_NAME_PREFIX}`);
      const seqCalls = SEQUENTIAL_RUNS * PEER_CALLS_PER_RUN;
      const concCalls = CONCURRENT_RUNS * PEER_CALLS_PER_RUN;
      const concRate = concCalls / (concMs / 1000);
      log();
      log('== dbos phase (DBOS Transact 5.3 workflow of the panel shape, each call a checkpointed step, in this process)');
      log(`system database ${sysDb.name} (pool ${ctx.poolSize}, application_name ${DBOS_APPLICATION_NAME_PREFIX}…); ${fmt(checkpoints / CONCURRENT_RUNS, 1)} step checkpoints per workflow`);
      log(`sequential (${SEQUENTIAL_RUNS} workflows, ${seqCalls} calls): ${fmt(seqCalls / (seqMs / 1000), 1)} calls/s`);
      log(`concurrent (${CONCURRENT_RUNS} workflows, ${concCalls} calls): ${fmt(concRate, 1)} calls/s`);
      log("CPU ms per agent call (this process, which also holds the idle floor workers, and DBOS's Postgres backends):");
      log(`  dbos, sequential: ${cpuLine(seqCpu, seqCalls, peerSide).line}`);
      log(`  dbos, concurrent: ${cpuLine(concCpu, concCalls, peerSide).line}`);
      log('Postgres per agent call, concurrent (pg_stat_database / pg_stat_user_tables of the system database):');
      for (const line of describePgActivity(pgBefore, pgAfter, concCalls)) log(`  ${line}`);
      return { concurrentCallsPerSecond: concRate };
    } finally {
      await peer.close();
    }
  } finally {
    await sysDb.drop();
  }
}
