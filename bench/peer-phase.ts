/**
 * The peer phase: the LangGraph.js graph of the panel demo's shape (langgraph-peer.ts) in this
 * process, one thread after another, then BENCH_PEER_CONCURRENT_RUNS thread ids at once, with
 * the CPU of this process and of the peer's Postgres backends per agent call.
 */
import { BenchContext, cpuLine, fmt, intEnv, log, measureCpu } from './bench-context';
import { LangGraphPeer, PEER_APPLICATION_NAME } from './langgraph-peer';
import { PANEL_CASSETTE } from './panel-runs';
import { describePgActivity, pgActivity } from './pg-activity';
import { cannedReplies, PEER_CALLS_PER_RUN } from './peer-replies';

const SEQUENTIAL_RUNS = intEnv('BENCH_PEER_SEQUENTIAL_RUNS', 10);
const CONCURRENT_RUNS = intEnv('BENCH_PEER_CONCURRENT_RUNS', 50);
const WARMUP_RUNS = intEnv('BENCH_PEER_WARMUP_RUNS', 3);

export interface PeerFigures {
  concurrentCallsPerSecond: number;
}

export async function peerPhase(ctx: BenchContext): Promise<PeerFigures> {
  const peer = await LangGraphPeer.start(ctx.db.url, ctx.poolSize, cannedReplies(PANEL_CASSETTE));
  try {
    const ids = (phase: string, n: number) => Array.from({ length: n }, (_, i) => `${phase}-${i}`);
    log(`bench: peer: warming up (${WARMUP_RUNS} threads), then ${SEQUENTIAL_RUNS} threads one after another, then ${CONCURRENT_RUNS} at once`);
    for (const id of ids('warm', WARMUP_RUNS)) await peer.run([id]);
    const timed = async (work: () => Promise<void>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const seqIds = ids('seq', SEQUENTIAL_RUNS);
    const [seqMs, seqCpu] = await measureCpu(ctx, { bench: process.pid }, () =>
      timed(async () => {
        for (const id of seqIds) await peer.run([id]);
      }),
    );
    const concIds = ids('conc', CONCURRENT_RUNS);
    const pgBefore = await pgActivity(ctx.pg, ctx.db.name);
    const [concMs, concCpu] = await measureCpu(ctx, { bench: process.pid }, () => timed(() => peer.run(concIds)));
    const pgAfter = await pgActivity(ctx.pg, ctx.db.name);
    const checkpoints = await peer.checkpoints(concIds);

    const peerSide = (n: string) => n === 'bench' || n.includes(PEER_APPLICATION_NAME);
    const seqCalls = SEQUENTIAL_RUNS * PEER_CALLS_PER_RUN;
    const concCalls = CONCURRENT_RUNS * PEER_CALLS_PER_RUN;
    const concRate = concCalls / (concMs / 1000);
    log();
    log('== peer phase (LangGraph.js StateGraph of the panel shape, PostgresSaver, durability "sync", in this process)');
    log(`pool ${ctx.poolSize} (application_name ${PEER_APPLICATION_NAME}); ${fmt(checkpoints / CONCURRENT_RUNS, 1)} checkpoints per thread`);
    log(`sequential (${SEQUENTIAL_RUNS} threads, ${seqCalls} calls): ${fmt(seqCalls / (seqMs / 1000), 1)} calls/s`);
    log(`concurrent (${CONCURRENT_RUNS} threads, ${concCalls} calls): ${fmt(concRate, 1)} calls/s`);
    log('CPU ms per agent call (this process, which also holds the idle floor workers, and the peer\'s Postgres backends):');
    log(`  peer, sequential: ${cpuLine(seqCpu, seqCalls, peerSide).line}`);
    log(`  peer, concurrent: ${cpuLine(concCpu, concCalls, peerSide).line}`);
    log('Postgres per agent call, concurrent (pg_stat_database / pg_stat_user_tables of the scratch database):');
    for (const line of describePgActivity(pgBefore, pgAfter, concCalls)) log(`  ${line}`);
    return { concurrentCallsPerSecond: concRate };
  } finally {
    await peer.close();
  }
}
