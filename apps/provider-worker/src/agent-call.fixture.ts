import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AgentCallEntity, createDataSource, createTestDatabase, ProjectEntity, RunEntity, type TestDatabase } from '@roundtable/persistence';
import { createRedisConnection, JobProducer, type RedisClient } from '@roundtable/queues';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL } from '@roundtable/testing';

/**
 * The set-up the provider-worker's integration tests share: a Proposal reply, the rows the
 * orchestrator would have written (project, run, queued call), and the real Postgres and Redis.
 * (libs/providers has the same PROPOSAL in its own fixture, which the library does not export.)
 */

/** A Proposal the zod schema accepts, for scripted and cassette replies. */
export const PROPOSAL = {
  proposal_id: 'P1',
  claim: 'One pass over the series, tracking the running peak.',
  approach: 'Keep the peak; the largest (peak - x) / peak is the answer.',
  assumptions: ['equity is positive'],
  evidence: ['the definition of maximum drawdown'],
  risks: ['rounding'],
  tests_required: ['[100, 80, 120, 60] -> 0.5'],
  confidence: 0.8,
};

/** The messages of a queued proposer call unless a test gives its own. */
const DEFAULT_MESSAGES = [
  { role: 'system' as const, content: 'You are the proposer in a team of specialist agents.' },
  { role: 'user' as const, content: 'Objective: x.' },
];

/**
 * A queued proposer call `${runId}-c${seq}`, as the orchestrator's step writer writes it; the
 * prompt hash is that of the row's messages. It does not move the run's call_seq: each test
 * does that as its scenario needs.
 */
export async function insertQueuedCall(ds: DataSource, runId: string, seq: number, overrides: Partial<AgentCallEntity> = {}): Promise<string> {
  const id = `${runId}-c${seq}`;
  const messages = overrides.messages ?? DEFAULT_MESSAGES;
  await ds.getRepository(AgentCallEntity).insert({
    id,
    runId,
    seq,
    stage: 'PROPOSE',
    role: 'proposer',
    provider: 'replay',
    model: 'replay',
    label: `P${seq}`,
    attempt: 1,
    status: 'queued',
    promptHash: createHash('sha256').update(JSON.stringify(messages)).digest('hex'),
    messages,
    schemaName: 'Proposal',
    maxTokens: 1000,
    temperature: 0.2,
    timeoutMs: 10_000,
    ...overrides,
  } as QueryDeepPartialEntity<AgentCallEntity>);
  return id;
}

/** The project `prj_<config.project>` and its running build run in PROPOSE, both holding `config`. */
export async function insertRun(ds: DataSource, runId: string, config: { project: string; objective: string }, callSeq = 0): Promise<void> {
  const stored = config as unknown as Record<string, unknown>;
  const projectId = `prj_${config.project}`;
  await ds.getRepository(ProjectEntity).insert({ id: projectId, name: config.project, objective: config.objective, requirements: [], config: stored } as QueryDeepPartialEntity<ProjectEntity>);
  await ds.getRepository(RunEntity).insert({ id: runId, projectId, workflow: 'build', status: 'running', stage: 'PROPOSE', config: stored, callSeq } as QueryDeepPartialEntity<RunEntity>);
}

export interface WorkerTestInfra {
  db: TestDatabase;
  ds: DataSource;
  redis: RedisClient;
  prefix: string;
  producer: JobProducer;
  /** Closes the producer, deletes the queue prefix, drops the database. */
  close(): Promise<void>;
}

/** A migrated test database, a Redis connection and a JobProducer on a fresh queue prefix named after `prefixName`. */
export async function workerTestInfra(prefixName: string): Promise<WorkerTestInfra> {
  const made: Partial<WorkerTestInfra> = {};
  // Closes whatever was made, so a set-up failing half-way leaves no database or keys behind.
  const close = async () => {
    await made.producer?.close();
    if (made.redis) {
      await deleteRedisPrefix(made.redis, made.prefix!);
      made.redis.disconnect();
    }
    if (made.ds?.isInitialized) await made.ds.destroy();
    await made.db?.drop();
  };
  try {
    made.db = await createTestDatabase({ migrate: true });
    const ds = createDataSource(made.db.url, { poolSize: 4 });
    await ds.initialize();
    made.ds = ds;
    made.prefix = randomQueuePrefix(prefixName);
    made.redis = createRedisConnection(TEST_REDIS_URL);
    made.producer = new JobProducer(made.redis, made.prefix);
  } catch (err) {
    await close();
    throw err;
  }
  return { ...(made as Omit<WorkerTestInfra, 'close'>), close };
}
