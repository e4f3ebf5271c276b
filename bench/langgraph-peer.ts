/**
 * The peer of the panel phase: a LangGraph.js StateGraph of the panel demo's shape, checkpointed
 * to the same Postgres by @langchain/langgraph-checkpoint-postgres. Five judges in parallel
 * (Send fan-out from START), fifteen debate turns one per super-step in the demo's fixed order,
 * five re-votes in parallel (Send fan-out again), one moderator. Each node's "call" is a fake
 * zero-latency provider: it parses the canned reply the panel demo's cassette holds for that
 * call (the same bytes our replay provider returns), so both sides carry replies of one size.
 *
 * Durability: `durability: 'sync'` on invoke (langgraph 1.x, pregel/types.d.ts): each
 * super-step's checkpoint is written before the next step starts, the closest thing the peer
 * has to our one transaction per step. Its pool is a node-postgres Pool of the services' size,
 * named so its backends can be told apart in pg_stat_activity.
 */
import { readFileSync } from 'node:fs';
import { Annotation, END, Send, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Pool } from 'pg';
import { parse as parseYaml } from 'yaml';

export const PEER_APPLICATION_NAME = 'roundtable-bench-peer';
const JUDGES = ['vc', 'engineer', 'pm', 'customer', 'competitor'] as const;
type Judge = (typeof JUDGES)[number];

/** The demo cassette's replies as JSON text, per role, in the order the replay provider hands them out. */
export interface CannedReplies {
  verdict: Record<Judge, string>;
  turns: string[];
  revote: Record<Judge, string>;
  moderator: string;
}

export function cannedReplies(cassetteFile: string): CannedReplies {
  const { replies } = parseYaml(readFileSync(cassetteFile, 'utf8')) as { replies: { role: string; reply: unknown }[] };
  const byRole = new Map<string, string[]>();
  for (const r of replies) byRole.set(r.role, [...(byRole.get(r.role) ?? []), JSON.stringify(r.reply)]);
  const of = (role: string, i: number) => {
    const text = byRole.get(role)?.[i];
    if (text === undefined) throw new Error(`${cassetteFile}: no reply #${i + 1} for role ${role}`);
    return text;
  };
  const turns: string[] = [];
  for (let round = 0; round < 3; round++) for (const j of JUDGES) turns.push(of(j, 1 + round));
  return {
    verdict: Object.fromEntries(JUDGES.map((j) => [j, of(j, 0)])) as Record<Judge, string>,
    turns,
    revote: Object.fromEntries(JUDGES.map((j) => [j, of(j, 4)])) as Record<Judge, string>,
    moderator: of('moderator', 0),
  };
}

/** One agent call of the peer: zero latency, the reply parsed as a provider's reply would be. */
const fakeCall = async (replyText: string): Promise<Record<string, unknown>> => JSON.parse(replyText) as Record<string, unknown>;

const append = <T>(a: T[], b: T[]): T[] => a.concat(b);
const PanelState = Annotation.Root({
  verdicts: Annotation<Record<string, unknown>[]>({ reducer: append, default: () => [] }),
  turns: Annotation<Record<string, unknown>[]>({ reducer: append, default: () => [] }),
  revotes: Annotation<Record<string, unknown>[]>({ reducer: append, default: () => [] }),
  synthesis: Annotation<Record<string, unknown> | null>({ reducer: (_a, b) => b, default: () => null }),
});
type State = typeof PanelState.State;

/** Agent calls one graph run makes: 5 verdicts + 15 turns + 5 re-votes + 1 moderator. */
export const PEER_CALLS_PER_RUN = 26;

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
