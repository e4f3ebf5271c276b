/**
 * The second peer of the panel phase: a DBOS Transact durable workflow of the panel demo's shape,
 * its system database on the bench's Postgres. Every agent call is a checkpointed step
 * (`DBOS.runStep`: its output is written to the system database before the workflow goes on);
 * the five verdicts and the five re-votes are started in a fixed order and awaited with
 * `Promise.allSettled`, as DBOS documents for parallel steps (step ids are handed out in the
 * order the steps start, which recovery replays); the fifteen debate turns run one after
 * another; then the moderator. Each step's call is the fake zero-latency provider of
 * peer-replies.ts, parsing the same cassette reply the LangGraph peer and our replay provider use.
 *
 * DBOS is a process-wide singleton: one peer per process, registered before `DBOS.launch()`.
 * Its pool is DBOS's own (`systemDatabasePoolSize`, the services' size), which names its
 * backends `dbos_transact_<executor>_<version>`: the phase counts them by that prefix.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { Pool } from 'pg';
import { CannedReplies, fakeCall, JUDGES, PEER_CALLS_PER_RUN } from './peer-replies';

/** application_name of DBOS's own pool's backends starts with this (system_database.js). */
export const DBOS_APPLICATION_NAME_PREFIX = 'dbos_transact_';
/** The bench's own connection to the system database (counters, checks): not on the peer's side. */
const STATS_APPLICATION_NAME = 'roundtable-bench';

type Reply = Record<string, unknown>;

/** The panel as a DBOS workflow body; returns the number of calls it made. */
function panelWorkflow(replies: CannedReplies): () => Promise<number> {
  const call = (name: string, reply: string) => DBOS.runStep(() => fakeCall(reply), { name });
  // Started in JUDGES order, so every execution hands the same step ids to the same judges.
  const allOf = async (started: Promise<Reply>[]): Promise<Reply[]> => {
    const settled = await Promise.allSettled(started);
    return settled.map((s) => {
      if (s.status === 'rejected') throw s.reason;
      return s.value;
    });
  };
  return async () => {
    const verdicts = await allOf(JUDGES.map((j) => call(`verdict:${j}`, replies.verdict[j])));
    const turns: Reply[] = [];
    for (const [i, reply] of replies.turns.entries()) turns.push(await call(`turn:${i + 1}`, reply));
    const revotes = await allOf(JUDGES.map((j) => call(`revote:${j}`, replies.revote[j])));
    const synthesis = await call('moderator', replies.moderator);
    return verdicts.length + turns.length + revotes.length + (synthesis ? 1 : 0);
  };
}

export class DbosPeer {
  private constructor(
    private readonly workflow: () => Promise<number>,
    private readonly stats: Pool,
  ) {}

  /** Registers the workflow and launches DBOS on `systemDatabaseUrl` (an empty database it migrates). */
  static async start(systemDatabaseUrl: string, poolSize: number, replies: CannedReplies): Promise<DbosPeer> {
    if (DBOS.isInitialized()) throw new Error('DBOS is already launched in this process: one DBOS peer per process');
    DBOS.setConfig({ name: 'roundtable-bench-dbos', systemDatabaseUrl, systemDatabasePoolSize: poolSize, logLevel: 'warn' });
    const workflow = DBOS.registerWorkflow(panelWorkflow(replies), { name: 'panel' });
    await DBOS.launch();
    return new DbosPeer(workflow, new Pool({ connectionString: systemDatabaseUrl, max: 1, application_name: STATS_APPLICATION_NAME }));
  }

  /** Runs one workflow per id, all at once; resolves when every one has returned. */
  async run(workflowIds: string[]): Promise<void> {
    await Promise.all(
      workflowIds.map(async (workflowID) => {
        const handle = await DBOS.startWorkflow(this.workflow, { workflowID })();
        const calls = await handle.getResult();
        if (calls !== PEER_CALLS_PER_RUN) throw new Error(`DBOS workflow ${workflowID} made ${calls} calls, not ${PEER_CALLS_PER_RUN}`);
      }),
    );
  }

  /** Step checkpoints written (one `operation_outputs` row per step). */
  async checkpoints(workflowIds: string[]): Promise<number> {
    const { rows } = await this.stats.query<{ n: string }>(`SELECT count(*) AS n FROM dbos.operation_outputs WHERE workflow_uuid = ANY($1)`, [workflowIds]);
    return Number(rows[0].n);
  }

  /** A pool on the system database for the bench's counters (pg-activity.ts reads per-database tables). */
  get statsPool(): Pool {
    return this.stats;
  }

  async close(): Promise<void> {
    await this.stats.end();
    await DBOS.shutdown();
  }
}
