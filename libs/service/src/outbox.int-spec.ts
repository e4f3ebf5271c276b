import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { RedisClient } from '@roundtable/queues';
import { agentQueueName, jobId, QUEUE, type JobOf } from '@roundtable/contracts';
import { createDataSource, createTestDatabase, OutboxEntity, ProjectEntity, RunEntity, TestDatabase } from '@roundtable/persistence';
import { createRedisConnection, JobProducer } from '@roundtable/queues';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL } from '@roundtable/testing';
import { OutboxDispatcher, OutboxJob, OutboxJobInvalidError, outboxJob, writeOutbox } from './outbox';

jest.setTimeout(30_000);

let db: TestDatabase;
let ds: DataSource;
let redis: RedisClient;
let prefix: string;
let producer: JobProducer;
const runId = 'run_outbox';

beforeAll(async () => {
  db = await createTestDatabase({ migrate: true });
  ds = createDataSource(db.url, { poolSize: 2 });
  await ds.initialize();
  await ds.getRepository(ProjectEntity).insert({ id: 'prj_outbox', name: 'p', objective: 'o', requirements: [], config: {} } as QueryDeepPartialEntity<ProjectEntity>);
  await ds.getRepository(RunEntity).insert({ id: runId, projectId: 'prj_outbox', workflow: 'build', status: 'running', stage: 'PROPOSE', config: {} } as QueryDeepPartialEntity<RunEntity>);
  redis = createRedisConnection(TEST_REDIS_URL);
  prefix = randomQueuePrefix('rt_int_outbox');
  producer = new JobProducer(redis, prefix);
});
afterEach(async () => {
  await ds.query(`DELETE FROM outbox`);
  await deleteRedisPrefix(redis, prefix);
});
afterAll(async () => {
  await producer?.close();
  redis?.disconnect();
  await ds?.destroy();
  await db?.drop();
});

const rowCount = async () => (await ds.getRepository(OutboxEntity).count());

describe('the outbox carries JobOf<N>, checked against the catalogue', () => {
  it('writes a typed job with its queue derived from the catalogue, and sends it through the typed producer', async () => {
    const call = outboxJob('agent.call', { runId, callId: 'c1' }, { runId, jobId: jobId('c1', 'call'), provider: 'openai' });
    expect(call.queue).toBe(agentQueueName('openai'));
    const rows = await ds.transaction((em) => writeOutbox(em, [call, outboxJob('run.start', { runId }, { runId, jobId: jobId(runId, 'start') })]));
    expect(rows.map((r) => [r.jobName, r.queue])).toEqual([
      ['agent.call', 'agent.openai'],
      ['run.start', QUEUE.orchestrator],
    ]);
    expect(await new OutboxDispatcher(ds, producer).dispatchRows(rows)).toBe(2);
    const job = await producer.queue('agent.openai').getJob(jobId('c1', 'call'));
    expect(job?.name).toBe('agent.call');
    expect(job?.data).toEqual({ runId, callId: 'c1' });
    const [{ unsent }] = await ds.query(`SELECT count(*)::int AS unsent FROM outbox WHERE sent_at IS NULL`);
    expect(unsent).toBe(0);
  });

  it('refuses a bad payload before the INSERT, naming the job and the field', async () => {
    const bad = { runId, queue: QUEUE.workspace, jobName: 'workspace.apply', jobId: 'j__op1', payload: { runId, opId: 'op1' } } as unknown as OutboxJob;
    const attempt = ds.transaction((em) => writeOutbox(em, [outboxJob('run.start', { runId }, { runId, jobId: 'j__start' }), bad]));
    await expect(attempt).rejects.toThrow(OutboxJobInvalidError);
    await expect(ds.transaction((em) => writeOutbox(em, [bad]))).rejects.toThrow(/outbox job workspace\.apply \(j__op1\): payload\.implementationId: /);
    // Nothing of the step was written: not even the good job before the bad one.
    expect(await rowCount()).toBe(0);
  });

  it('refuses a job name outside the catalogue and a queue its job does not go to', async () => {
    const unknown = { runId, queue: QUEUE.orchestrator, jobName: 'run.explode', jobId: 'j__x', payload: { runId } } as unknown as OutboxJob;
    await expect(ds.transaction((em) => writeOutbox(em, [unknown]))).rejects.toThrow(/outbox job run\.explode \(j__x\): jobName: "run\.explode" is not a job of the catalogue/);
    const misrouted = { runId, queue: QUEUE.tests, jobName: 'run.start', jobId: 'j__y', payload: { runId } } as OutboxJob;
    await expect(ds.transaction((em) => writeOutbox(em, [misrouted]))).rejects.toThrow(/outbox job run\.start \(j__y\): queue: "tests" is not a queue for orchestrator jobs/);
    const agentElsewhere = { runId, queue: QUEUE.orchestrator, jobName: 'agent.call', jobId: 'j__z', payload: { runId, callId: 'c' } } as OutboxJob;
    await expect(ds.transaction((em) => writeOutbox(em, [agentElsewhere]))).rejects.toThrow(/queue: "orchestrator" is not a queue for agent jobs/);
    expect(await rowCount()).toBe(0);
  });

  it('stores the payload as the catalogue parses it (unknown keys dropped)', async () => {
    const extra = { runId, callId: 'c2', secret: 'not in the catalogue' } as JobOf<'agent.call'>;
    await ds.transaction((em) => writeOutbox(em, [outboxJob('agent.call', extra, { runId, jobId: 'j__c2', provider: 'anthropic' })]));
    const [row] = await ds.getRepository(OutboxEntity).find();
    expect(row.payload).toEqual({ runId, callId: 'c2' });
  });

  it('does not send a row written around the writer whose payload the catalogue refuses (the sweeper keeps it unsent)', async () => {
    await ds.getRepository(OutboxEntity).insert({ runId, queue: QUEUE.tests, jobName: 'tests.run', jobId: 'j__t1', payload: { runId, opId: 't1' } });
    const [{ id }] = await ds.query(`SELECT id FROM outbox`);
    await expect(new OutboxDispatcher(ds, producer).dispatch([Number(id)])).rejects.toThrow(/implementationId/);
    expect(await producer.queue(QUEUE.tests).getJob('j__t1')).toBeUndefined();
    const [{ unsent }] = await ds.query(`SELECT count(*)::int AS unsent FROM outbox WHERE sent_at IS NULL`);
    expect(unsent).toBe(1);
  });

  it('keeps a delayed job\'s not_before on the row: the sweeper, after a crash, sends it with what is left of its delay', async () => {
    const retry = outboxJob('agent.call', { runId, callId: 'c9' }, { runId, jobId: jobId('c9', 'call'), provider: 'openai', delayMs: 60_000 });
    const now = outboxJob('agent.call', { runId, callId: 'c10' }, { runId, jobId: jobId('c10', 'call'), provider: 'openai' });
    await ds.transaction((em) => writeOutbox(em, [retry, now]));
    const rows = await ds.getRepository(OutboxEntity).find({ order: { id: 'ASC' } });
    expect(rows[0].notBefore!.getTime() - rows[0].createdAt.getTime()).toBeGreaterThanOrEqual(59_000);
    expect(rows[1].notBefore).toBeNull();
    // As if the process died before sending: the sweeper finds both unsent.
    await ds.query(`UPDATE outbox SET created_at = created_at - interval '10 seconds', not_before = not_before - interval '10 seconds'`);
    expect(await new OutboxDispatcher(ds, producer).sweep(1000)).toBe(2);
    const delayed = await producer.queue('agent.openai').getJob(jobId('c9', 'call'));
    expect(await delayed?.getState()).toBe('delayed');
    expect(delayed!.opts.delay).toBeGreaterThan(40_000);
    expect(delayed!.opts.delay).toBeLessThanOrEqual(50_000);
    expect(await (await producer.queue('agent.openai').getJob(jobId('c10', 'call')))?.getState()).toBe('waiting');
  });
});
