import type { DataSource } from 'typeorm';
import { AgentCallEntity, RunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { demoConfig, insertProject, orchestratorTestInfra, type OrchestratorTestInfra } from './orchestrator-test.fixture';

/**
 * How many round trips to Postgres one orchestrator step costs, counted at the driver (every
 * node-postgres Client.query is one). The step's promise (ARCHITECTURE.md): the lock batch, the
 * write batch carrying the COMMIT, and the outbox's sent mark after it — whatever a step writes
 * (its events and their hash chain included, issue 26), never a statement's own round trip.
 */

jest.setTimeout(30_000);

const RUN_ID = 'run_trips00001';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the driver TypeORM loads, patched to count
const pg = require('pg') as { Client: { prototype: { query: (...a: unknown[]) => unknown } } };

async function roundTripsOf(f: () => Promise<unknown>): Promise<number> {
  const original = pg.Client.prototype.query;
  let n = 0;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
    // A statement is PREPAREd once per connection and kept for the connection's life: not a step's cost.
    if (!text.startsWith('PREPARE ')) n += 1;
    return original.apply(this, args);
  };
  try {
    await f();
  } finally {
    pg.Client.prototype.query = original;
  }
  return n;
}

describe('an orchestrator step in round trips', () => {
  let infra: OrchestratorTestInfra;
  let ds: DataSource;

  beforeAll(async () => {
    infra = await orchestratorTestInfra('rt_int_trips', 2);
    ds = infra.ds;
    const config = demoConfig();
    await insertProject(ds, 'prj_trips00001', 'trips', config);
    await ds.getRepository(RunEntity).insert({ id: RUN_ID, projectId: 'prj_trips00001', workflow: 'build', status: 'queued', stage: 'INIT', config } as QueryDeepPartialEntity<RunEntity>);
    // Every connection of the pool opened and its statements prepared, so the counts below are a warm step's.
    await Promise.all([ds.query('SELECT 1'), ds.query('SELECT 1')]);
  });

  afterAll(async () => {
    await infra?.close();
  });

  it('run.start and agent.done cost the lock batch, the write batch and the outbox mark; workspace.done one read more', async () => {
    // run.start: lock batch, write batch (+ COMMIT), the outbox's sent mark.
    expect(await roundTripsOf(() => infra.steps.apply('run.start', { runId: RUN_ID }))).toBe(3);

    const prepare = await ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ runId: RUN_ID });
    await ds.getRepository(WorkspaceOpEntity).update({ id: prepare.id }, { status: 'done', result: { path: '/tmp/rt-int-trips', tree: [] }, finishedAt: new Date() });
    // workspace.done: the build reads the op's result (its file tree) between the two batches.
    expect(await roundTripsOf(() => infra.steps.apply('workspace.done', { runId: RUN_ID, opId: prepare.id }))).toBe(4);

    const call = await ds.getRepository(AgentCallEntity).findOneByOrFail({ runId: RUN_ID });
    await ds.getRepository(AgentCallEntity).update(
      { id: call.id },
      { status: 'completed', valid: true, parsed: { x: 1 }, responseText: '{"x":1}', inputTokens: 10, outputTokens: 5, latencyMs: 1, finishedAt: new Date() },
    );
    // An invalid reply still makes a whole step: settled, the repair queued, events written.
    expect(await roundTripsOf(() => infra.steps.apply('agent.done', { runId: RUN_ID, callId: call.id }))).toBe(3);
    // The events were written in those round trips.
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM run_events WHERE run_id = $1`, [RUN_ID]);
    expect(n).toBeGreaterThan(3);
  });
});
