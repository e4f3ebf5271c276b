/**
 * The peer of the panel phase: a LangGraph.js StateGraph of the panel demo's shape, checkpointed
 * to the same Postgres by @langchain/langgraph-checkpoint-postgres. Five judges in parallel
 * (Send fan-out from START), fifteen debate turns one per super-step in the demo's fixed order,
 * five re-votes in parallel (Send fan-out again), one moderator. Each node's "call" is a fake
 * zero-latency provider (peer-replies.ts): it parses the canned reply the panel demo's cassette
 * holds for that call (the same bytes our replay provider returns), so both sides carry replies
 * of one size.
 *
 * Durability: `durability: 'sync'` on invoke (langgraph 1.x, pregel/types.d.ts): each
 * super-step's checkpoint is written before the next step starts, the closest thing the peer
 * has to our one transaction per step. Its pool is a node-postgres Pool of the services' size,
 * named so its backends can be told apart in pg_stat_activity.
 */
import { Annotation, END, Send, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Pool } from 'pg';
import { CannedReplies, fakeCall, Judge, JUDGES, PEER_CALLS_PER_RUN } from './peer-replies';

export const PEER_APPLICATION_NAME = 'roundtable-bench-peer';

const append = <T>(a: T[], b: T[]): T[] => a.concat(b);
const PanelState = Annotation.Root({
  verdicts: Annotation<Record<string, unknown>[]>({ reducer: append, default: () => [] }),
  turns: Annotation<Record<string, unknown>[]>({ reducer: append, default: () => [] }),
  revotes: Annotation<Record<string, unknown>[]>({ reducer: append, default: () => [] }),
  synthesis: Annotation<Record<string, unknown> | null>({ reducer: (_a, b) => b, default: () => null }),
});
type State = typeof PanelState.State;

export class LangGraphPeer {
  private constructor(
    private readonly pool: Pool,
    private readonly graph: ReturnType<typeof buildGraph>,
  ) {}

  static async start(databaseUrl: string, poolSize: number, replies: CannedReplies): Promise<LangGraphPeer> {
    const pool = new Pool({ connectionString: databaseUrl, max: poolSize, application_name: PEER_APPLICATION_NAME });
    const saver = new PostgresSaver(pool);
    await saver.setup();
    return new LangGraphPeer(pool, buildGraph(saver, replies));
  }

  /** Runs one graph per thread id, all at once; resolves when every one has reached END. */
  async run(threadIds: string[]): Promise<void> {
    await Promise.all(
      threadIds.map(async (id) => {
        const out = (await this.graph.invoke({}, { configurable: { thread_id: id }, durability: 'sync' })) as State;
        const calls = out.verdicts.length + out.turns.length + out.revotes.length + (out.synthesis ? 1 : 0);
        if (calls !== PEER_CALLS_PER_RUN) throw new Error(`peer thread ${id} made ${calls} calls, not ${PEER_CALLS_PER_RUN}`);
      }),
    );
  }

  /** Checkpoint rows written (each super-step writes one). */
  async checkpoints(threadIds: string[]): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM checkpoints WHERE thread_id = ANY($1)`, [threadIds]);
    return Number(rows[0].n);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function buildGraph(saver: PostgresSaver, replies: CannedReplies) {
  const judgeAll = (node: 'judge' | 'revote') => () => JUDGES.map((judge) => new Send(node, { judge }));
  return new StateGraph(PanelState)
    .addNode('judge', async ({ judge }: { judge: Judge }) => ({ verdicts: [await fakeCall(replies.verdict[judge])] }))
    .addNode('debate', async (s: State) => ({ turns: [await fakeCall(replies.turns[s.turns.length])] }))
    .addNode('revote', async ({ judge }: { judge: Judge }) => ({ revotes: [await fakeCall(replies.revote[judge])] }))
    .addNode('moderator', async () => ({ synthesis: await fakeCall(replies.moderator) }))
    .addConditionalEdges(START, judgeAll('judge'))
    .addEdge('judge', 'debate')
    .addConditionalEdges('debate', (s: State) => (s.turns.length < replies.turns.length ? 'debate' : judgeAll('revote')()))
    .addEdge('revote', 'moderator')
    .addEdge('moderator', END)
    .compile({ checkpointer: saver });
}
