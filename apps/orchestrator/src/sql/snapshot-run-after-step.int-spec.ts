import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { addStatement, createDataSource, createTestDatabase, ProjectEntity, RunEntity, StatementBatch, type TestDatabase } from '@roundtable/persistence';
import { UPDATE_SNAPSHOT_RUN_AFTER_STEP, type SnapshotRunAfterStep } from './snapshot-run-after-step.sql';

jest.setTimeout(30_000);

/**
 * The panel step's run UPDATE against the migrated schema, through the batch the step sends it
 * in (sql-statements.int-spec.ts's style): the jsonb state round-trips quotes, backslashes,
 * unicode and arrays; unchanged columns stay; event_seq moves past the step's events.
 */
let db: TestDatabase;
let ds: DataSource;
const RUN = 'run_panel_sql';
const HARD = `it's "quoted" \\ back\\slash — naïve 🚀 𝄞`;

beforeAll(async () => {
  db = await createTestDatabase({ migrate: true });
  ds = createDataSource(db.url, { poolSize: 2 });
  await ds.initialize();
  await ds.getRepository(ProjectEntity).insert({ id: 'prj_psql', name: 'p', objective: 'o', requirements: [], config: {} } as QueryDeepPartialEntity<ProjectEntity>);
  await ds.getRepository(RunEntity).insert({
    id: RUN,
    projectId: 'prj_psql',
    workflow: 'panel',
    status: 'queued',
    stage: 'ROAST',
    round: 3,
    config: { project: HARD },
  } as QueryDeepPartialEntity<RunEntity>);
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

async function update(runId: string, r: SnapshotRunAfterStep) {
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    const b = new StatementBatch(runner);
    addStatement(b, UPDATE_SNAPSHOT_RUN_AFTER_STEP, runId, r);
    return (await b.flush({ before: 'BEGIN', after: 'COMMIT' }))[0];
  } finally {
    await runner.release();
  }
}

const step = (over: Partial<SnapshotRunAfterStep> = {}): SnapshotRunAfterStep => ({
  status: 'running',
  stage: 'DEBATE',
  haltReason: null,
  workflowState: { verdicts: [HARD, { note: HARD, scores: [1, 2.5, null] }], empty: [] },
  config: undefined,
  labelCounters: { turn: 2 },
  callSeq: 7,
  verdict: null,
  confidence: null,
  startedAt: new Date('2026-01-01T00:00:00Z'),
  finishedAt: null,
  events: 3,
  headHash: 'h3',
  signature: null,
  ...over,
});

const row = async () => (await ds.getRepository(RunEntity).findOneByOrFail({ id: RUN })) as RunEntity;

it('writes the panel columns, keeps config, verdict and the build columns, and moves event_seq past the events', async () => {
  const before = await row();
  const res = await update(RUN, step());
  expect(res.rowCount).toBe(1);
  const after = await row();
  expect(after).toMatchObject({ status: 'running', stage: 'DEBATE', haltReason: null, callSeq: 7, labelCounters: { turn: 2 }, round: 3, verdict: null });
  expect(after.workflowState).toEqual({ verdicts: [HARD, { note: HARD, scores: [1, 2.5, null] }], empty: [] });
  expect(after.config).toEqual({ project: HARD });
  expect(after.eventSeq).toBe(before.eventSeq + 3);
  expect(after).toMatchObject({ headHash: 'h3', signature: null });
  expect(after.startedAt?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
});

it('sets config, verdict and confidence when given, and keeps started_at when null', async () => {
  await update(RUN, step({ status: 'done', stage: 'DONE', config: { project: HARD, raised: [1] }, verdict: 'ship', confidence: 0.75, startedAt: null, finishedAt: new Date(), events: 0 }));
  const after = await row();
  expect(after).toMatchObject({ status: 'done', stage: 'DONE', verdict: 'ship', confidence: 0.75, config: { project: HARD, raised: [1] } });
  expect(after.startedAt?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  expect(after.finishedAt).not.toBeNull();
  // A later step without a verdict keeps the one written (and its confidence); a null signature keeps the row's.
  await update(RUN, step({ signature: { sequence: 3, hash: 'h3' } }));
  await update(RUN, step({ status: 'done', stage: 'DONE', verdict: null, confidence: null, startedAt: null, events: 0 }));
  expect(await row()).toMatchObject({ verdict: 'ship', confidence: 0.75, headHash: 'h3', signature: { sequence: 3, hash: 'h3' } });
});

it('answers rowCount 0 for a run that does not exist', async () => {
  expect((await update('run_nowhere', step())).rowCount).toBe(0);
});
