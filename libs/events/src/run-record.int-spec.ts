import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { eventHash } from '@roundtable/contracts';
import { createDataSource, createTestDatabase, ProjectEntity, RunEntity, TestDatabase } from '@roundtable/persistence';
import { appendRunEvents } from './run-event-log';
import { readRunRecord, verifyRunRecord } from './run-record';

jest.setTimeout(30_000);

let db: TestDatabase;
let ds: DataSource;

beforeAll(async () => {
  db = await createTestDatabase({ migrate: true });
  ds = createDataSource(db.url, { poolSize: 2 });
  await ds.initialize();
  await ds.getRepository(ProjectEntity).insert({ id: 'prj_rec', name: 'p', objective: 'o', requirements: [], config: {} } as QueryDeepPartialEntity<ProjectEntity>);
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const newRun = (id: string) =>
  ds.getRepository(RunEntity).insert({ id, projectId: 'prj_rec', workflow: 'build', status: 'running', stage: 'PROPOSE', config: {} } as QueryDeepPartialEntity<RunEntity>);

describe('the event log chains', () => {
  it('appendRunEvents chains from the head the event_seq UPDATE answers, and moves runs.head_hash in its INSERT; jsonb key order does not matter', async () => {
    await newRun('run_chain');
    await ds.transaction((em) => appendRunEvents(em, 'run_chain', [{ type: 'run_created', payload: { workflow: 'build', project: 'p' } }]));
    await ds.transaction((em) =>
      appendRunEvents(em, 'run_chain', [
        // Keys jsonb will store in another order (shorter first), numbers and text that round-trip.
        { type: 'budget_warning', payload: { limit: 5, cap: 'max_cost_usd', used: 4.0123456789 } },
        { type: 'open_question_raised', payload: { role: 'engineer', question: 'line "two" — naïve ✓ 🚀 \\ \u0001' } },
      ]),
    );
    const record = (await readRunRecord(ds, 'run_chain'))!;
    expect(record.events.map((e) => e.sequence)).toEqual([1, 2, 3]);
    let prev: string | null = null;
    for (const e of record.events) {
      expect(e.hash).toBe(eventHash(prev, e));
      prev = e.hash;
    }
    expect(record.head_hash).toBe(prev);
    expect(await verifyRunRecord(ds, 'run_chain')).toMatchObject({ intact: true, events: 3, head: prev, signature: { status: 'absent' } });
    // Through a caller's EntityManager too.
    expect(await ds.transaction((em) => verifyRunRecord(em, 'run_chain'))).toMatchObject({ intact: true });
  });

  it('a run whose first events predate the chain: they are unchained, and the chain starts after them', async () => {
    await newRun('run_old');
    await ds.query(`INSERT INTO run_events (run_id, sequence, type, payload) VALUES ('run_old', 1, 'run_created', '{"project":"p","workflow":"build"}')`);
    await ds.query(`UPDATE runs SET event_seq = 1 WHERE id = 'run_old'`);
    await ds.transaction((em) => appendRunEvents(em, 'run_old', [{ type: 'run_started', payload: { workspace: null } }]));
    expect(await verifyRunRecord(ds, 'run_old')).toMatchObject({ intact: true, events: 2, unchained: 1 });
  });

  it('no such run: null', async () => {
    expect(await verifyRunRecord(ds, 'run_none')).toBeNull();
  });
});
