import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { createDataSource, createTestDatabase, ProjectEntity, RunEntity, TestDatabase } from '@roundtable/persistence';
import { readRunEventsJson } from './run-event-json';
import { appendRunEvents, readRunEvents } from './run-event-log';

jest.setTimeout(30_000);

let db: TestDatabase;
let ds: DataSource;
const runId = 'run_json';

beforeAll(async () => {
  db = await createTestDatabase({ migrate: true });
  ds = createDataSource(db.url, { poolSize: 2 });
  await ds.initialize();
  await ds.getRepository(ProjectEntity).insert({ id: 'prj_json', name: 'p', objective: 'o', requirements: [], config: {} } as QueryDeepPartialEntity<ProjectEntity>);
  await ds.getRepository(RunEntity).insert({ id: runId, projectId: 'prj_json', workflow: 'build', status: 'running', stage: 'PROPOSE', config: {} } as QueryDeepPartialEntity<RunEntity>);
  await ds.transaction((em) =>
    appendRunEvents(em, runId, [
      { type: 'run_created', payload: { project: 'p', workflow: 'build' } },
      { type: 'open_question_raised', payload: { role: 'engineer', question: 'line one\nline "two" — naïve ✓ 🚀 \\ \u0001' } },
      { type: 'criteria_locked', payload: { criteria: [{ id: 'R1', text: 'a' }, { id: 'R2', text: 'b' }] } },
      { type: 'budget_warning', payload: { cap: 'max_cost_usd', used: 4.0123456789, limit: 5 } },
      { type: 'run_completed', payload: { status: 'done', verdict: 'ACCEPT', confidence: 0.85 } },
    ]),
  );
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

describe('readRunEventsJson', () => {
  it('serialises each envelope exactly as toEnvelope shapes it (values, created_at form), on one line', async () => {
    const objects = await readRunEvents(ds, runId);
    const texts = await readRunEventsJson(ds, runId);
    expect(texts.map((t) => [t.sequence, t.type])).toEqual(objects.map((o) => [o.sequence, o.type]));
    expect(texts.map((t) => JSON.parse(t.json))).toEqual(objects);
    for (const t of texts) expect(t.json).not.toMatch(/[\r\n]/);
    expect(JSON.parse(texts[0].json).created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('pages after a sequence, like readRunEvents', async () => {
    expect((await readRunEventsJson(ds, runId, 2, 2)).map((t) => t.sequence)).toEqual([3, 4]);
    expect(await readRunEventsJson(ds, runId, 5)).toEqual([]);
    expect(await readRunEventsJson(ds, 'run_other')).toEqual([]);
  });
});
