import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { loadProjectConfig } from '@roundtable/contracts';
import { RunEventPublisher } from '@roundtable/events';
import { OutboxDispatcher } from '@roundtable/service';
import { createDataSource, createTestDatabase, ProjectEntity, type TestDatabase } from '@roundtable/persistence';
import { createRedisConnection, JobProducer, type RedisClient } from '@roundtable/queues';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL } from '@roundtable/testing';
import { OrchestratorStepService } from './orchestrator-step.service';
import { loadPromptTemplates } from './prompt-templates';

/**
 * The set-up the orchestrator's integration tests share: the real Postgres and Redis, the step
 * service on them with the repository's prompts, and the demo project's config as a run stores it.
 */

const REPO = path.resolve(__dirname, '../../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');

/** examples/dd-demo/project.yaml, validated, as the projects and runs tables hold it. */
export function demoConfig(): Record<string, unknown> {
  return loadProjectConfig(readFileSync(DEMO, 'utf8'), { env: process.env, baseDir: path.dirname(DEMO) }) as unknown as Record<string, unknown>;
}

/** A project row holding `config`, for the runs a test inserts under it. */
export async function insertProject(ds: DataSource, id: string, name: string, config: Record<string, unknown>): Promise<void> {
  await ds.getRepository(ProjectEntity).insert({ id, name, objective: 'o', requirements: [], config } as QueryDeepPartialEntity<ProjectEntity>);
}

export interface OrchestratorTestInfra {
  db: TestDatabase;
  ds: DataSource;
  redis: RedisClient;
  prefix: string;
  producer: JobProducer;
  publisher: RunEventPublisher;
  steps: OrchestratorStepService;
  /** Closes the producer, deletes the queue prefix, drops the database. */
  close(): Promise<void>;
}

/** A migrated test database (a pool of `poolSize`), Redis on a fresh queue prefix named after `prefixName`, and the step service on them. */
export async function orchestratorTestInfra(prefixName: string, poolSize: number): Promise<OrchestratorTestInfra> {
  const made: Partial<OrchestratorTestInfra> = {};
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
    const ds = createDataSource(made.db.url, { poolSize });
    await ds.initialize();
    made.ds = ds;
    made.prefix = randomQueuePrefix(prefixName);
    made.redis = createRedisConnection(TEST_REDIS_URL);
    made.producer = new JobProducer(made.redis, made.prefix);
    made.publisher = new RunEventPublisher(made.redis, made.prefix);
    made.steps = new OrchestratorStepService(ds, new OutboxDispatcher(ds, made.producer), made.publisher, loadPromptTemplates(path.join(REPO, 'prompts')));
  } catch (err) {
    await close();
    throw err;
  }
  return { ...(made as Omit<OrchestratorTestInfra, 'close'>), close };
}
