import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { agentQueueName, type CallOutcome, jobId, loadProjectConfig, QUEUE, type JobName } from '@roundtable/contracts';
import { RunEventPublisher } from '@roundtable/events';
import { OutboxDispatcher } from '@roundtable/service';
import {
  AgentCallEntity,
  createDataSource,
  createTestDatabase,
  ProjectEntity,
  RECORD_CALL_OUTCOME_SQL,
  RunEntity,
  TestDatabase,
  WorkspaceOpEntity,
} from '@roundtable/persistence';
import { loadCassette } from '@roundtable/providers';
import type { INestApplicationContext } from '@nestjs/common';
import { createRedisConnection, JobProducer, startProcessorApp, type RedisClient } from '@roundtable/queues';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL, waitFor } from '@roundtable/testing';
import { OrchestratorStepService, type StepOutcome } from './orchestrator-step.service';
import { OrchestratorProcessor } from './orchestrator.processor';
import { loadPromptTemplates } from './prompt-templates';

jest.setTimeout(30_000);

const REPO = path.resolve(__dirname, '../../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const RUN_ID = 'run_idem000001';

/** Every table a run owns, with the columns that legitimately move without a state change. */
const RUN_TABLES: Record<string, string[]> = {
  runs: ['updated_at'],
  agent_calls: [],
  proposals: [],
  critiques: [],
  implementations: [],
  syntheses: [],
  test_runs: [],
  artifacts: [],
  decisions: [],
  open_questions: [],
  run_events: [],
  outbox: ['sent_at'],
  budget_reservations: [],
  usage_by_provider: [],
  applied_events: [],
  workspace_ops: [],
};

type Snapshot = Record<string, string[]>;

/** Each run-owned table as sorted JSON rows (jsonb orders keys, so equal rows give equal strings). */
async function snapshot(ds: DataSource): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const [table, drop] of Object.entries(RUN_TABLES)) {
    const minus = drop.map((c) => ` - '${c}'`).join('');
    const rows: { r: unknown }[] = await ds.query(`SELECT to_jsonb(t)${minus} AS r FROM "${table}" t`);
    out[table] = rows.map((x) => JSON.stringify(x.r)).sort();
  }
  return out;
}

async function jobTotal(producer: JobProducer, queueName: string): Promise<number> {
  const counts = await producer.queue(queueName).getJobCounts();
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

describe('OrchestratorStepService against real Postgres and Redis', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let redis: RedisClient;
  let prefix: string;
  let producer: JobProducer;
  let outbox: OutboxDispatcher;
  let steps: OrchestratorStepService;
  let worker: INestApplicationContext | undefined;
  const cassette = loadCassette(path.join(REPO, 'examples/dd-demo/cassette.yaml'));
  const firstReply = (role: string) => cassette.replies.find((r) => r.role === role)!.reply as Record<string, unknown>;

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
    ds = createDataSource(db.url, { poolSize: 4 });
    await ds.initialize();
    redis = createRedisConnection(TEST_REDIS_URL);
    prefix = randomQueuePrefix('rt_int_orch');
    producer = new JobProducer(redis, prefix);
    outbox = new OutboxDispatcher(ds, producer);
    steps = new OrchestratorStepService(ds, outbox, new RunEventPublisher(redis, prefix), loadPromptTemplates(path.join(REPO, 'prompts')));

    const config = loadProjectConfig(readFileSync(DEMO, 'utf8'), { env: process.env, baseDir: path.dirname(DEMO) });
    const stored = config as unknown as Record<string, unknown>;
    // As the api writes them: a project, and its run queued at INIT with the resolved config.
    await ds.getRepository(ProjectEntity).insert({
      id: 'prj_idem000001',
      name: config.project,
      objective: config.objective,
      requirements: config.requirements,
      config: stored,
    } as QueryDeepPartialEntity<ProjectEntity>);
    await ds
      .getRepository(RunEntity)
      .insert({ id: RUN_ID, projectId: 'prj_idem000001', workflow: 'build', status: 'queued', stage: 'INIT', config: stored } as QueryDeepPartialEntity<RunEntity>);
  });

  afterAll(async () => {
    // Every step runs even if an earlier one throws: a leaked worker keeps jest from exiting.
    const errors: unknown[] = [];
    const attempt = async (f: () => unknown) => {
      try {
        await f();
      } catch (e) {
        errors.push(e);
      }
    };
    await attempt(() => worker?.close());
    await attempt(() => producer?.close());
    await attempt(async () => {
      if (!redis) return;
      await deleteRedisPrefix(redis, prefix);
      redis.disconnect();
    });
    await attempt(() => ds?.destroy());
    await attempt(() => db?.drop());
    if (errors.length) throw errors[0];
  });

  /** Records a call's outcome the way the provider-worker does after a valid reply. */
  async function completeCall(callId: string, parsed: Record<string, unknown>): Promise<void> {
    const text = JSON.stringify(parsed);
    await ds.getRepository(AgentCallEntity).update(
      { id: callId },
      { status: 'completed', valid: true, parsed, responseText: text, inputTokens: 1200, outputTokens: 340, latencyMs: 5, finishedAt: new Date() },
    );
  }

  /** The outcome agent.done carries when the provider-worker sends it with its own write. */
  function outcomeOf(parsed: Record<string, unknown>): CallOutcome {
    return {
      status: 'completed',
      valid: true,
      parsed,
      response_text: JSON.stringify(parsed),
      error: null,
      error_code: null,
      input_tokens: 900,
      output_tokens: 100,
      cached_input_tokens: null,
      cost_usd: 0.25,
      cost_source: 'table',
      latency_ms: 7,
      request_id: 'req_1',
      billing: 'api',
      argv: null,
      finished_at: '2026-11-30T12:00:00.000Z',
    };
  }

  it('applies run.start → workspace.done → agent.done, and a second delivery of agent.done changes no row', async () => {
    expect(await steps.apply('run.start', { runId: RUN_ID })).toBe('applied');
    const prepare = await ds.getRepository(WorkspaceOpEntity).findOneByOrFail({ runId: RUN_ID });
    expect(prepare).toMatchObject({ kind: 'prepare', status: 'queued' });
    // The outbox sent the prepare job after the commit, under its deterministic id.
    expect(await producer.queue(QUEUE.workspace).getJob(jobId(prepare.id, 'prepare'))).toBeDefined();

    // The test-runner's part, done by hand.
    await ds.getRepository(WorkspaceOpEntity).update({ id: prepare.id }, { status: 'done', result: { path: '/tmp/rt-int-ws', tree: [] }, finishedAt: new Date() });
    expect(await steps.apply('workspace.done', { runId: RUN_ID, opId: prepare.id })).toBe('applied');

    const proposerCall = await ds.getRepository(AgentCallEntity).findOneByOrFail({ runId: RUN_ID });
    expect(proposerCall).toMatchObject({ role: 'proposer', label: 'P1', status: 'queued', attempt: 1, provider: 'replay' });

    await completeCall(proposerCall.id, firstReply('proposer'));
    expect(await steps.apply('agent.done', { runId: RUN_ID, callId: proposerCall.id })).toBe('applied');

    const once = await snapshot(ds);
    // The step did something worth protecting: P1 recorded, the critic queued, usage counted once.
    expect(once.proposals).toHaveLength(1);
    expect(once.agent_calls.map((r) => JSON.parse(r)).map((c: { role: string; status: string }) => `${c.role}:${c.status}`).sort()).toEqual([
      'critic:queued',
      'proposer:completed',
    ]);
    expect(once.usage_by_provider.map((r) => JSON.parse(r))).toEqual([expect.objectContaining({ provider: 'replay', calls: 1, input_tokens: 1200, output_tokens: 340 })]);
    expect(once.budget_reservations.map((r) => JSON.parse(r).call_id)).toEqual([`${RUN_ID}-c2`]);
    expect(JSON.parse(once.runs[0])).toMatchObject({ status: 'running', stage: 'CRITIQUE' });

    // Second delivery, straight into the step.
    expect(await steps.apply('agent.done', { runId: RUN_ID, callId: proposerCall.id })).toBe('duplicate');
    expect(await snapshot(ds)).toEqual(once);

    // The provider-worker's deterministic id: a repeated enqueue is one job.
    const doneId = jobId(proposerCall.id, 'done');
    await producer.add('agent.done', { runId: RUN_ID, callId: proposerCall.id }, { jobId: doneId });
    await producer.add('agent.done', { runId: RUN_ID, callId: proposerCall.id }, { jobId: doneId });
    expect(await jobTotal(producer, QUEUE.orchestrator)).toBe(1);
    // A redelivery BullMQ cannot de-duplicate (another job id) must be caught by the step's inbox.
    const redeliveryId = jobId(proposerCall.id, 'done', 'redelivered');
    await producer.add('agent.done', { runId: RUN_ID, callId: proposerCall.id }, { jobId: redeliveryId });
    expect(await jobTotal(producer, QUEUE.orchestrator)).toBe(2);

    // Both go through a real orchestrator worker.
    const applySpy = jest.spyOn(steps, 'apply');
    worker = await startProcessorApp({
      redisUrl: TEST_REDIS_URL,
      prefix,
      queues: [QUEUE.orchestrator],
      providers: [{ provide: OrchestratorProcessor, useFactory: () => new OrchestratorProcessor(steps, { concurrency: 2 }) }],
    });
    const orchestratorQueue = producer.queue(QUEUE.orchestrator);
    for (const id of [doneId, redeliveryId]) {
      await waitFor(`job ${id} to finish`, async () => ((await orchestratorQueue.getJob(id))?.finishedOn ? true : undefined), 10_000, 50);
      expect(await (await orchestratorQueue.getJob(id))!.getState()).toBe('completed');
    }
    const outcomes = await Promise.all(applySpy.mock.results.map((r) => r.value as Promise<StepOutcome>));
    expect(applySpy.mock.calls.map((c) => c[0])).toEqual<JobName[]>(['agent.done', 'agent.done']);
    expect(outcomes).toEqual(['duplicate', 'duplicate']);
    applySpy.mockRestore();
    expect(await snapshot(ds)).toEqual(once);
  });

  it('re-sends unsent outbox rows without duplicating a job (the sweeper after a crash)', async () => {
    const before = await snapshot(ds);
    const agentQueue = agentQueueName('replay');
    const workspaceJobs = await jobTotal(producer, QUEUE.workspace);
    const agentJobs = await jobTotal(producer, agentQueue);
    expect([workspaceJobs, agentJobs]).toEqual([1, 2]);

    // As if the process died between COMMIT and the send: every row unsent again.
    await ds.query(`UPDATE outbox SET sent_at = NULL, created_at = created_at - interval '1 minute'`);
    expect(await outbox.sweep(1000)).toBe(3);
    expect(await jobTotal(producer, QUEUE.workspace)).toBe(workspaceJobs);
    expect(await jobTotal(producer, agentQueue)).toBe(agentJobs);
    const [{ unsent }] = await ds.query(`SELECT count(*)::int AS unsent FROM outbox WHERE sent_at IS NULL`);
    expect(unsent).toBe(0);
    // created_at was moved above on purpose; everything else is as it was.
    const after = await snapshot(ds);
    const withoutCreated = (s: Snapshot) => ({ ...s, outbox: s.outbox.map((r) => JSON.stringify({ ...JSON.parse(r), created_at: null })) });
    expect(withoutCreated(after)).toEqual(withoutCreated(before));
  });

  it('serialises two simultaneous deliveries of a fresh agent.done: one applies, one is a duplicate', async () => {
    const critic = await ds.getRepository(AgentCallEntity).findOneByOrFail({ runId: RUN_ID, role: 'critic' });
    await completeCall(critic.id, firstReply('critic'));
    const outcomes = await Promise.all([
      steps.apply('agent.done', { runId: RUN_ID, callId: critic.id }),
      steps.apply('agent.done', { runId: RUN_ID, callId: critic.id }),
    ]);
    expect(outcomes.sort()).toEqual(['applied', 'duplicate']);

    const calls = await ds.getRepository(AgentCallEntity).find({ where: { runId: RUN_ID }, order: { seq: 'ASC' } });
    expect(calls.map((c) => `${c.role}:${c.label}`)).toEqual(['proposer:P1', 'critic:C1', 'reviser:P2']);
    const [usage] = await ds.query(`SELECT calls FROM usage_by_provider WHERE run_id = $1`, [RUN_ID]);
    expect(usage.calls).toBe(2);
    const events: { sequence: number }[] = await ds.query(`SELECT sequence FROM run_events WHERE run_id = $1 ORDER BY sequence`, [RUN_ID]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM critiques WHERE run_id = $1`, [RUN_ID]);
    expect(n).toBe(1);
  });

  it("settles from the outcome agent.done carries when the provider-worker's own write has not landed; that write then changes nothing", async () => {
    const reviser = await ds.getRepository(AgentCallEntity).findOneByOrFail({ runId: RUN_ID, role: 'reviser' });
    await ds.getRepository(AgentCallEntity).update({ id: reviser.id }, { status: 'running', startedAt: new Date() });
    const outcome = outcomeOf(firstReply('reviser'));
    expect(await steps.apply('agent.done', { runId: RUN_ID, callId: reviser.id, outcome })).toBe('applied');

    const settled = await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: reviser.id });
    expect(settled).toMatchObject({ status: 'completed', valid: true, inputTokens: 900, outputTokens: 100, costUsd: 0.25, costSource: 'table', latencyMs: 7 });
    expect(settled.parsed).toEqual(outcome.parsed);
    expect(settled.finishedAt!.toISOString()).toBe(outcome.finished_at);
    const [usage] = await ds.query(`SELECT calls, input_tokens, cost_usd::float AS cost FROM usage_by_provider WHERE run_id = $1`, [RUN_ID]);
    expect(usage).toEqual({ calls: 3, input_tokens: 1200 * 2 + 900, cost: 0.25 });
    // The reviser's P2 is recorded and the critic asked about it: the step read the outcome it wrote.
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM proposals WHERE run_id = $1 AND label = 'P2'`, [RUN_ID]);
    expect(n).toBe(1);
    expect(await ds.getRepository(AgentCallEntity).countBy({ runId: RUN_ID, role: 'critic', status: 'queued' })).toBe(1);

    // The provider-worker's write lands afterwards: the row is no longer open, so nothing moves.
    const once = await snapshot(ds);
    const late = await ds.query(RECORD_CALL_OUTCOME_SQL, [reviser.id, JSON.stringify({ ...outcome, input_tokens: 1 })]);
    expect(late[1]).toBe(0);
    expect(await steps.apply('agent.done', { runId: RUN_ID, callId: reviser.id, outcome })).toBe('duplicate');
    expect(await snapshot(ds)).toEqual(once);
  });

  it('an interrupted try is reported and settled; the engine queues its retry (delayed); the first worker\'s late report is dropped', async () => {
    const critic = await ds.getRepository(AgentCallEntity).findOneByOrFail({ runId: RUN_ID, role: 'critic', status: 'queued' });
    // The second delivery found the try running: it reports it INTERRUPTED, retryable, and does nothing else.
    const interrupted: CallOutcome = {
      ...outcomeOf({}),
      status: 'failed',
      valid: null,
      parsed: null,
      response_text: null,
      error: 'interrupted: the provider-worker running this call stopped before recording a reply',
      error_code: 'INTERRUPTED',
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      retryable: true,
    };
    expect(await steps.apply('agent.done', { runId: RUN_ID, callId: critic.id, outcome: interrupted })).toBe('applied');
    expect(await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: critic.id })).toMatchObject({ status: 'failed', errorCode: 'INTERRUPTED', retryable: true });
    // The retry is the engine's: a new row (same messages, retry 1 of the try) with its own reservation, the try's released.
    const retry = await ds.getRepository(AgentCallEntity).findOneByOrFail({ runId: RUN_ID, retryOf: critic.id });
    expect(retry).toMatchObject({ role: 'critic', label: critic.label, attempt: critic.attempt, retry: 1, status: 'queued' });
    expect(retry.messages).toEqual(critic.messages);
    const held = await ds.query(`SELECT call_id FROM budget_reservations WHERE call_id IN ($1, $2)`, [critic.id, retry.id]);
    expect(held).toEqual([{ call_id: retry.id }]);
    const before = await snapshot(ds);

    // The first worker, still alive, reports its reply for the interrupted try: a second report of
    // the same try (one inbox key per try), dropped; the row keeps the outcome reported first.
    expect(await steps.apply('agent.done', { runId: RUN_ID, callId: critic.id, outcome: outcomeOf(firstReply('critic')) })).toBe('duplicate');
    // Nothing settled, counted, decided or recorded as applied; the try stays as it was reported.
    expect(await snapshot(ds)).toEqual(before);
  });

  it("waits for the provider-worker's write still in flight, and reads what it wrote instead of writing the outcome again", async () => {
    const retryId = `${(await ds.getRepository(AgentCallEntity).findOneByOrFail({ runId: RUN_ID, role: 'critic', retry: 1 })).id}`;
    const worker = ds.createQueryRunner();
    await worker.connect();
    try {
      await worker.startTransaction();
      await worker.query(RECORD_CALL_OUTCOME_SQL, [retryId, JSON.stringify({ ...outcomeOf(firstReply('critic')), input_tokens: 77 })]);
      let settled = false;
      const step = steps.apply('agent.done', { runId: RUN_ID, callId: retryId, outcome: outcomeOf(firstReply('critic')) }).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false); // held on the call's row lock
      await worker.commitTransaction();
      expect(await step).toBe('applied');
    } finally {
      await worker.release();
    }
    // The worker's values stand, and the usage counts them once (the interrupted try had none).
    expect(await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: retryId })).toMatchObject({ status: 'completed', inputTokens: 77 });
    const [usage] = await ds.query(`SELECT calls, input_tokens FROM usage_by_provider WHERE run_id = $1`, [RUN_ID]);
    expect(usage).toEqual({ calls: 5, input_tokens: 1200 * 2 + 900 + 77 });
    // And the step went on with that reply: a second critique is recorded.
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM critiques WHERE run_id = $1`, [RUN_ID]);
    expect(n).toBe(2);
  });

  it('a run started before snapshots existed (no workflow_state) is rebuilt from its tables once; its next step writes the snapshot', async () => {
    const before = await ds.getRepository(RunEntity).findOneByOrFail({ id: RUN_ID });
    const recorded = before.workflowState as { proposals: { label: string }[]; critiques: { label: string }[]; event_seq: number };
    expect(recorded.event_seq).toBe(before.eventSeq);
    await ds.query(`UPDATE runs SET workflow_state = NULL WHERE id = $1`, [RUN_ID]);

    expect(await steps.apply('run.cancel', { runId: RUN_ID })).toBe('applied');
    const after = await ds.getRepository(RunEntity).findOneByOrFail({ id: RUN_ID });
    expect(after.status).toBe('cancelled');
    const rebuilt = after.workflowState as typeof recorded;
    // What the tables hold came back: the proposal and both critiques, at the event_seq the cancel left.
    expect(rebuilt.proposals.map((p) => p.label)).toEqual(recorded.proposals.map((p) => p.label));
    expect(rebuilt.critiques.map((c) => c.label)).toEqual(recorded.critiques.map((c) => c.label));
    expect(rebuilt.critiques).toHaveLength(2);
    expect(rebuilt.event_seq).toBe(after.eventSeq);
    expect(after.eventSeq).toBeGreaterThan(before.eventSeq);
  });
});
