import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { AgentCallEntity } from './entities/agent-call.entity';
import { DecisionEntity } from './entities/decision.entity';
import { OutboxEntity } from './entities/outbox.entity';
import { ProjectEntity } from './entities/project.entity';
import { ProposalEntity } from './entities/proposal.entity';
import { RunEventEntity } from './entities/run-event.entity';
import { RunEntity } from './entities/run.entity';
import { createTestDatabase, type TestDatabase } from './test-database';

describe('entities against the migrated schema', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url);
    await ds.initialize();
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  async function seedRun(id: string): Promise<void> {
    await ds.getRepository(ProjectEntity).insert({
      id: `proj-${id}`,
      name: 'demo',
      objective: 'o',
      requirements: ['r1'],
      config: {},
    });
    await ds.getRepository(RunEntity).insert({
      id,
      projectId: `proj-${id}`,
      status: 'queued',
      stage: 'INIT',
      config: { providers: {} },
    });
  }

  it('fills the column defaults the migration declares', async () => {
    await seedRun('run-defaults');
    const run = await ds.getRepository(RunEntity).findOneByOrFail({ id: 'run-defaults' });
    expect(run).toMatchObject({
      workflow: 'build',
      round: 0,
      fixRound: 0,
      eventSeq: 0,
      callSeq: 0,
      labelCounters: {},
      criteria: null,
      criteriaLocked: false,
      unresolved: false,
      workflowState: null,
    });
    expect(run.createdAt).toBeInstanceOf(Date);
    expect(run.updatedAt).toBeInstanceOf(Date);
  });

  it('returns numeric money and bigint ids as JS numbers', async () => {
    await seedRun('run-numbers');
    await ds.getRepository(AgentCallEntity).insert({
      id: 'call-1',
      runId: 'run-numbers',
      seq: 1,
      stage: 'PROPOSE',
      role: 'proposer',
      provider: 'replay',
      model: 'm',
      status: 'completed',
      promptHash: 'h',
      messages: [{ role: 'user', content: 'hi' }],
      costUsd: 0.123456,
    });
    const call = await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: 'call-1' });
    expect(call.costUsd).toBe(0.123456);
    expect(call.contextRefs).toEqual([]);
    expect(call.attempt).toBe(1);

    const decision = await ds.getRepository(DecisionEntity).save({
      runId: 'run-numbers',
      fromStage: 'INIT',
      toStage: 'PROPOSE',
      reason: 'start',
      refs: [],
    });
    expect(typeof decision.id).toBe('number');
    const loaded = await ds.getRepository(DecisionEntity).findOneByOrFail({ runId: 'run-numbers' });
    expect(loaded.id).toBe(decision.id);

    const outbox = await ds.getRepository(OutboxEntity).save({
      runId: 'run-numbers',
      queue: 'agent.replay',
      jobName: 'agent.call',
      jobId: 'run-numbers-1',
      payload: { call_id: 'call-1' },
    });
    expect(typeof outbox.id).toBe('number');
  });

  it('rejects a status outside the vocabulary', async () => {
    await seedRun('run-bad-status');
    await expect(
      ds.getRepository(RunEntity).update({ id: 'run-bad-status' }, { status: 'paused' as never }),
    ).rejects.toThrow(/ck_runs_status/);
  });

  it('rejects a second agent call with the same per-run sequence', async () => {
    await seedRun('run-seq');
    const call = {
      runId: 'run-seq',
      seq: 1,
      stage: 'PROPOSE',
      role: 'proposer',
      provider: 'replay',
      model: 'm',
      status: 'queued' as const,
      promptHash: 'h',
      messages: [],
    };
    await ds.getRepository(AgentCallEntity).insert({ ...call, id: 'call-seq-a' });
    await expect(ds.getRepository(AgentCallEntity).insert({ ...call, id: 'call-seq-b' })).rejects.toThrow(
      /ux_agent_calls_run_id_seq/,
    );
  });

  it('deletes everything a run owns with the run, across references between its rows', async () => {
    await seedRun('run-cascade');
    await ds.getRepository(AgentCallEntity).insert({
      id: 'call-cascade',
      runId: 'run-cascade',
      seq: 1,
      stage: 'PROPOSE',
      role: 'proposer',
      provider: 'replay',
      model: 'm',
      status: 'completed',
      promptHash: 'h',
      messages: [],
    });
    await ds.getRepository(ProposalEntity).insert({
      id: 'prop-cascade',
      runId: 'run-cascade',
      callId: 'call-cascade',
      label: 'P1',
      round: 0,
      status: 'proposed',
      body: {},
    });
    await ds.getRepository(RunEventEntity).insert({
      runId: 'run-cascade',
      sequence: 1,
      type: 'run_created',
      payload: {},
    });

    await ds.getRepository(RunEntity).delete({ id: 'run-cascade' });

    expect(await ds.getRepository(AgentCallEntity).countBy({ runId: 'run-cascade' })).toBe(0);
    expect(await ds.getRepository(ProposalEntity).countBy({ runId: 'run-cascade' })).toBe(0);
    expect(await ds.getRepository(RunEventEntity).countBy({ runId: 'run-cascade' })).toBe(0);
  });
});
