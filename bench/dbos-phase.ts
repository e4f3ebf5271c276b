/**
 * The dbos phase: the DBOS Transact workflow of the panel demo's shape (dbos-peer.ts) in this
 * process, its system database a second scratch database the phase creates and drops; warm-up,
 * one workflow after another, then BENCH_DBOS_CONCURRENT_RUNS at once, with the CPU of this
 * process and of DBOS's Postgres backends per agent call, printed as the LangGraph peer's are.
 */
import { createTestDatabase } from '@roundtable/persistence';
import { BenchContext, intEnv } from './bench-context';
import { DBOS_APPLICATION_NAME_PREFIX, DbosPeer } from './dbos-peer';
import { PANEL_CASSETTE } from './panel-runs';
import { measurePeer } from './peer-measure';
import { cannedReplies } from './peer-replies';

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
      return await measurePeer(ctx, peer, {
        phase: 'dbos',
        runs: 'workflows',
        heading: 'DBOS Transact 5.3 workflow of the panel shape, each call a checkpointed step, in this process',
        store: (perRun) => `system database ${sysDb.name} (pool ${ctx.poolSize}, application_name ${DBOS_APPLICATION_NAME_PREFIX}…); ${perRun} step checkpoints per workflow`,
        side: (n) => n === 'bench' || n.startsWith(`postgres (${DBOS_APPLICATION_NAME_PREFIX}`),
        stats: { pool: peer.statsPool, database: sysDb.name, ownDatabase: true },
        counts: { warmup: WARMUP_RUNS, sequential: SEQUENTIAL_RUNS, concurrent: CONCURRENT_RUNS },
      });
    } finally {
      await peer.close();
    }
  } finally {
    await sysDb.drop();
  }
}
