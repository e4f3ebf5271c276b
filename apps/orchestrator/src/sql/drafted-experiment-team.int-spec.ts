import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { createDataSource, createTestDatabase, ProjectEntity, RunEntity, runStatement, type TestDatabase } from '@roundtable/persistence';
import { INSERT_DRAFTED_EXPERIMENT } from './step-writes.sql';

jest.setTimeout(30_000);

/**
 * Issue 26: an experiment a build drafts in a run of its own is the build's team's — the
 * experiment row and its run carry the build run's team (and submitter), so the team that
 * owns the build sees them and no other team does.
 */
describe('INSERT_DRAFTED_EXPERIMENT and teams', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 2 });
    await ds.initialize();
    await ds.getRepository(ProjectEntity).insert({ id: 'prj_build', name: 'p', objective: 'o', requirements: [], config: {} } as QueryDeepPartialEntity<ProjectEntity>);
    await ds
      .getRepository(RunEntity)
      .insert({ id: 'run_build', projectId: 'prj_build', workflow: 'build', status: 'running', stage: 'CRITIQUE', config: {}, submittedBy: 'bob', team: 'beta' } as QueryDeepPartialEntity<RunEntity>);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it("writes the drafted experiment and its run in the build's team, by the build's submitter", async () => {
    const config = { workflow: 'experiment', project: 'p', draft_from: 'does the cache help?', repo: '/srv/repo', source: { run_id: 'run_build' } };
    await runStatement(ds, INSERT_DRAFTED_EXPERIMENT, 'run_build', { experimentId: 'exp_drafted', childRunId: 'run_child', config });
    expect(await ds.query(`SELECT team, submitted_by FROM runs WHERE id = 'run_child'`)).toEqual([{ team: 'beta', submitted_by: 'bob' }]);
    expect(await ds.query(`SELECT team, created_by FROM experiments WHERE id = 'exp_drafted'`)).toEqual([{ team: 'beta', created_by: 'run run_build' }]);
  });
});
