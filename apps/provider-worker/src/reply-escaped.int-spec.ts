import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OperatorPolicy } from '@roundtable/contracts';
import { AgentCallEntity, createDataSource, createTestDatabase, ProjectEntity, RunEntity, type TestDatabase } from '@roundtable/persistence';
import { createRedisConnection, JobProducer } from '@roundtable/queues';
import { deleteRedisPrefix, randomQueuePrefix, startFakeLlmServer, TEST_REDIS_URL, type FakeLlmServer } from '@roundtable/testing';
import { AgentCallService } from './agent-call.service';

jest.setTimeout(30_000);

const RUN = 'run_escaped001';
const KEY = 'sk-ant-int-escaped-0123456789';

/**
 * A reply Postgres cannot store as it came (a NUL inside a JSON string, through the real
 * Anthropic SDK from the fake wire server) is recorded once, escaped and flagged: never an
 * interrupted try, never a second request to the provider.
 */
describe('AgentCallService: a reply with a NUL is stored escaped, once', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let redis: Redis;
  let prefix: string;
  let producer: JobProducer;
  let server: FakeLlmServer;

  beforeAll(async () => {
    server = await startFakeLlmServer({
      apiKey: KEY,
      script: {
        replies: [
          {
            role: 'proposer',
            reply: {
              proposal_id: 'P1',
              claim: 'peak\u0000tracking',
              approach: 'Keep the peak; the largest (peak - x) / peak is the answer.',
              assumptions: ['equity is positive'],
              evidence: ['the definition of maximum drawdown'],
              risks: ['rounding'],
              tests_required: ['[100, 80, 120, 60] -> 0.5'],
              confidence: 0.8,
            },
            times: 3,
          },
        ],
      },
    });
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 4 });
    await ds.initialize();
    redis = createRedisConnection(TEST_REDIS_URL);
    prefix = randomQueuePrefix('rt_int_escaped');
    producer = new JobProducer(redis, prefix);
    const config = { project: 'esc', objective: 'x', providers: { anthropic: { type: 'anthropic', api_key_env: 'INT_ESC_KEY', base_url: server.baseUrls.anthropic } }, agents: {} };
    await ds.getRepository(ProjectEntity).insert({ id: 'prj_esc', name: 'esc', objective: 'x', requirements: [], config } as QueryDeepPartialEntity<ProjectEntity>);
    await ds.getRepository(RunEntity).insert({ id: RUN, projectId: 'prj_esc', workflow: 'build', status: 'running', stage: 'PROPOSE', config, callSeq: 1 } as QueryDeepPartialEntity<RunEntity>);
    const messages = [
      { role: 'system' as const, content: 'You are the proposer in a team of specialist agents.' },
      { role: 'user' as const, content: 'Objective: x.' },
    ];
    await ds.getRepository(AgentCallEntity).insert({
      id: `${RUN}-c1`,
      runId: RUN,
      seq: 1,
      stage: 'PROPOSE',
      role: 'proposer',
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      label: 'P1',
      attempt: 1,
      status: 'queued',
      promptHash: createHash('sha256').update(JSON.stringify(messages)).digest('hex'),
      messages,
      schemaName: 'Proposal',
      maxTokens: 1000,
      temperature: 0.2,
      timeoutMs: 10_000,
    } as QueryDeepPartialEntity<AgentCallEntity>);
  });

  afterAll(async () => {
    await producer?.close();
    if (redis) {
      await deleteRedisPrefix(redis, prefix);
      redis.disconnect();
    }
    await ds?.destroy();
    await db?.drop();
    await server?.close();
  });

  it('one row, completed and valid, the NUL as the text \\u0000, flagged; the provider asked once', async () => {
    const calls = new AgentCallService(ds, producer, {
      retryDelaysMs: [10, 10],
      pricing: { models: {} },
      env: { INT_ESC_KEY: KEY },
      policy: OperatorPolicy.parse({ api_keys: { INT_ESC_KEY: { provider_type: 'anthropic', base_urls: ['http://127.0.0.1:*'] } } }),
    });
    expect(await calls.execute(RUN, `${RUN}-c1`)).toEqual({ kind: 'done', callId: `${RUN}-c1` });
    // A second delivery (what a failed write used to cause) finds the outcome recorded.
    expect(await calls.execute(RUN, `${RUN}-c1`)).toEqual({ kind: 'done', callId: `${RUN}-c1` });
    const rows = await ds.getRepository(AgentCallEntity).find({ where: { runId: RUN } });
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({ status: 'completed', valid: true, errorCode: null, responseEscaped: true });
    expect((row.parsed as { claim: string }).claim).toBe('peak\\u0000tracking');
    expect(row.responseText).toContain('peak\\u0000tracking');
    expect(row.responseText).not.toContain('\u0000');
    expect(server.requests).toHaveLength(1);
  });
});
