import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import { QUEUE, readOperatorPolicy } from '@roundtable/contracts';
import { createDataSource, createTestDatabase, ProjectEntity, RunEntity, TestDatabase, WorkspaceOpEntity } from '@roundtable/persistence';
import { createRedisConnection, JobProducer, type RedisClient } from '@roundtable/queues';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL } from '@roundtable/testing';
import { SandboxRunners } from './sandbox-runners';
import { WorkspaceOpsService } from './workspace-ops.service';

jest.setTimeout(30_000);

/**
 * The op row is typed both ways: a request that is not what its kind says, and an answer that
 * would not be, are recorded as the op's failure naming the op and the field (a retry would
 * read the same row), and the run hears of it (the done job is sent).
 */
describe('WorkspaceOpsService reads typed requests and writes typed results', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let redis: RedisClient;
  let prefix: string;
  let producer: JobProducer;
  let root: string;
  const { policy } = readOperatorPolicy();
  const service = () => new WorkspaceOpsService(ds, producer, root, new SandboxRunners({ image: 'roundtable/sandbox:latest' }), policy);
  const opRow = (id: string) => ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ id });

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 2 });
    await ds.initialize();
    redis = createRedisConnection(TEST_REDIS_URL);
    prefix = randomQueuePrefix('rt_int_oprows');
    producer = new JobProducer(redis, prefix);
    root = await mkdtemp(path.join(tmpdir(), 'rt-oprows-'));
    await ds.getRepository(ProjectEntity).insert({ id: 'proj1', name: 'p', objective: 'o', requirements: [], config: {} } as never);
    await ds.getRepository(RunEntity).insert({ id: 'run_rows', projectId: 'proj1', status: 'running', stage: 'TEST', config: {} } as never);
  });
  afterAll(async () => {
    await deleteRedisPrefix(redis, prefix);
    await producer?.close();
    redis?.disconnect();
    await ds?.destroy();
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('records a tests request without its label as the op failure, naming the op and the field, and reports it', async () => {
    const opId = 'run_rows-op1';
    await ds.getRepository(WorkspaceOpEntity).insert({ id: opId, runId: 'run_rows', kind: 'tests', status: 'queued', implementationId: null, result: { command: 'true', timeoutS: 5 } } as never);
    await service().runTests('run_rows', opId);
    const op = await opRow(opId);
    expect(op.status).toBe('failed');
    expect(op.error).toBe('workspace op run_rows-op1 (tests): result.testLabel: Invalid input: expected string, received undefined');
    const job = await producer.queue(QUEUE.orchestrator).getJob('j__run_rows-op1__done');
    expect(job?.name).toBe('tests.done');
  });

  it('refuses to write a read answer whose request says not who asked, and records why', async () => {
    const opId = 'run_rows-op2';
    await ds.getRepository(WorkspaceOpEntity).insert({ id: opId, runId: 'run_rows', kind: 'read', status: 'queued', result: { paths: ['a.py'], reason: null } } as never);
    await service().read('run_rows', opId);
    const op = await opRow(opId);
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/^workspace op run_rows-op2 \(read\): result\.label: /);
    expect(op.result).toEqual({ paths: ['a.py'], reason: null }); // the request, as it was: no answer written
  });

  it('writes a read answer the schema accepts, with the request beside it', async () => {
    const opId = 'run_rows-op3';
    const request = { label: 'C1', role: 'critic', call_id: 'run_rows-c1', paths: ['missing.py'], reason: 'see it', refused: [], max_bytes_per_file: 64 };
    await ds.getRepository(WorkspaceOpEntity).insert({ id: opId, runId: 'run_rows', kind: 'read', status: 'queued', result: request } as never);
    await service().read('run_rows', opId);
    const op = await opRow(opId);
    expect(op.status).toBe('done');
    expect(op.result).toEqual({ ...request, files: [{ path: 'missing.py', content: null, bytes: null, truncated: false, error: 'no such file in the workspace' }] });
  });
});
