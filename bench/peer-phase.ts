/**
 * The peer phase: the LangGraph.js graph of the panel demo's shape (langgraph-peer.ts) in this
 * process, one thread after another, then BENCH_PEER_CONCURRENT_RUNS thread ids at once, with
 * the CPU of this process and of the peer's Postgres backends per agent call.
 */
import { BenchContext, intEnv } from './bench-context';
import { LangGraphPeer, PEER_APPLICATION_NAME } from './langgraph-peer';
import { PANEL_CASSETTE } from './panel-runs';
import { measurePeer } from './peer-measure';
import { cannedReplies } from './peer-replies';

const SEQUENTIAL_RUNS = intEnv('BENCH_PEER_SEQUENTIAL_RUNS', 10);
const CONCURRENT_RUNS = intEnv('BENCH_PEER_CONCURRENT_RUNS', 50);
const WARMUP_RUNS = intEnv('BENCH_PEER_WARMUP_RUNS', 3);

export interface PeerFigures {
  concurrentCallsPerSecond: number;
}

export async function peerPhase(ctx: BenchContext): Promise<PeerFigures> {
  const peer = await LangGraphPeer.start(ctx.db.url, ctx.poolSize, cannedReplies(PANEL_CASSETTE));
  try {
    return await measurePeer(ctx, peer, {
      phase: 'peer',
      runs: 'threads',
      heading: 'LangGraph.js StateGraph of the panel shape, PostgresSaver, durability "sync", in this process',
      store: (perRun) => `pool ${ctx.poolSize} (application_name ${PEER_APPLICATION_NAME}); ${perRun} checkpoints per thread`,
      side: (n) => n === 'bench' || n.includes(PEER_APPLICATION_NAME),
      stats: { pool: ctx.pg, database: ctx.db.name },
      counts: { warmup: WARMUP_RUNS, sequential: SEQUENTIAL_RUNS, concurrent: CONCURRENT_RUNS },
    });
  } finally {
    await peer.close();
  }
}
