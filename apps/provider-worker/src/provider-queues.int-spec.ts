import path from 'node:path';
import type { DataSource } from 'typeorm';
import { jobId, loadProjectConfig, QUEUE } from '@roundtable/contracts';
import { AgentCallEntity, BudgetReservationEntity, RunEntity } from '@roundtable/persistence';
import { loadPricing } from '@roundtable/providers';
import type { INestApplicationContext } from '@nestjs/common';
import { startProcessorApp, type JobProducer } from '@roundtable/queues';
import { agentCallProcessorFor, type AgentCallProcessor } from './agent-call.processor';
import { startFakeLlmServer, TEST_REDIS_URL, waitFor, type FakeLlmServer } from '@roundtable/testing';
import { insertQueuedCall, insertRun, PROPOSAL, workerTestInfra, type WorkerTestInfra } from './agent-call.fixture';
import { AgentCallService, type RecordedTry } from './agent-call.service';
import { readQueueSettings } from './latest-provider-config';

jest.setTimeout(30_000);

const REPO = path.resolve(__dirname, '../../..');
const RUN = 'run_pqw0000001';
const KEY = 'sk-ant-int-0123456789';

/**
 * The provider-worker in this process, on a real BullMQ queue and real Postgres, with the real
 * Anthropic SDK talking to the fake wire server: what a 429 does to the whole queue, what a
 * second delivery does, and that a failed try is only recorded and reported: the worker never
 * inserts a row, never writes a reservation and never moves the run's call_seq (a retry is the
 * orchestrator's engine's, a call it queues like any other; the tests queue it as it would).
 */
describe('AgentCallProcessor: 429 backs the whole provider queue off', () => {
  /** What the call counters were told, in order. */
  const recorded: RecordedTry[] = [];
  let infra: WorkerTestInfra;
  let ds: DataSource;
  let producer: JobProducer;
  let server: FakeLlmServer;
  let calls: AgentCallService;
  let app: INestApplicationContext;
  /** Made once the queue prefix is known: the processor consumes the queue under its hash-tagged prefix. */
  let AnthropicProcessor: ReturnType<typeof agentCallProcessorFor>;

  const messages = (n: number) => [
    { role: 'system' as const, content: 'You are the proposer in a team of specialist agents.\nReply with JSON only.' },
    { role: 'user' as const, content: `Objective: compute the maximum drawdown (request ${n}).` },
  ];

  /**
   * A queued call with its reservation, as the orchestrator's step writer writes it; `retryOf`:
   * the engine's retry of that failed try (same messages, retry n+1).
   */
  async function queueCall(seq: number, label: string, retryOf?: AgentCallEntity): Promise<string> {
    const id = await insertQueuedCall(ds, RUN, seq, {
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      label,
      messages: retryOf ? retryOf.messages : messages(seq),
      timeoutMs: 5000,
      retry: retryOf ? retryOf.retry + 1 : 0,
      retryOf: retryOf?.id ?? null,
    });
    await ds.getRepository(BudgetReservationEntity).insert({ callId: id, runId: RUN, provider: 'anthropic', calls: 1, tokens: 321, costUsd: null });
    return id;
  }

  beforeAll(async () => {
    server = await startFakeLlmServer({
      apiKey: KEY,
      script: {
        replies: [
          { role: 'proposer', fault: 429, retry_after_s: 1 },
          { role: 'proposer', reply: PROPOSAL, usage: { input_tokens: 1000, output_tokens: 200, cached_input_tokens: 0 } },
          { role: 'proposer', reply: { ...PROPOSAL, proposal_id: 'P2' }, usage: { input_tokens: 1000, output_tokens: 200, cached_input_tokens: 0 } },
          // The retry of the interrupted try (last test).
          { role: 'proposer', reply: { ...PROPOSAL, proposal_id: 'P3' }, usage: { input_tokens: 1000, output_tokens: 200, cached_input_tokens: 0 } },
        ],
      },
    });
    infra = await workerTestInfra('rt_int_pqw');
    AnthropicProcessor = agentCallProcessorFor('anthropic', infra.prefix);
    ({ ds, producer } = infra);

    const config = loadProjectConfig(
      {
        project: 'pqw',
        objective: 'x',
        providers: { anthropic: { type: 'anthropic', api_key_env: 'INT_ANTHROPIC_KEY', base_url: server.baseUrls.anthropic, concurrency: 1 } },
        agents: Object.fromEntries(['proposer', 'critic', 'reviser', 'engineer', 'validator', 'synthesizer'].map((r) => [r, { provider: 'anthropic', model: 'claude-haiku-4-5' }])),
      },
      { env: { INT_ANTHROPIC_KEY: KEY } },
    );
    await insertRun(ds, RUN, config, 2);
    await queueCall(1, 'P1');
    await queueCall(2, 'P2');

    calls = new AgentCallService(ds, producer, {
      retryDelaysMs: [50, 100, 200],
      pricing: loadPricing(path.join(REPO, 'examples/pricing.yaml')),
      env: { INT_ANTHROPIC_KEY: KEY },
      onRecorded: (t) => recorded.push(t),
    });
    app = await startProcessorApp({
      redisUrl: TEST_REDIS_URL,
      prefix: infra.prefix,
      queues: [],
      providers: [
        { provide: AnthropicProcessor, useFactory: () => new AnthropicProcessor('anthropic', calls, producer, { atStart: () => readQueueSettings(ds, 'anthropic', {}, 4) }) },
      ],
    });
  });

  afterAll(async () => {
    await app?.close();
    await infra?.close();
    await server?.close();
  });

  const reservations = async () =>
    (await ds.getRepository(BudgetReservationEntity).find({ where: { runId: RUN }, order: { callId: 'ASC' } })).map((r) => [r.callId, r.tokens]);
  const callSeq = async () => (await ds.getRepository(RunEntity).findOneByOrFail({ id: RUN })).callSeq;

  it('a 429 is recorded and reported retryable with its retry-after; P2 waits too, because the queue is rate limited; no row or reservation is added', async () => {
    // The queue took its concurrency from the run's provider entry, and has a limiter a 429 can use.
    const bull = app.get<AgentCallProcessor>(AnthropicProcessor).worker;
    expect(bull.opts.concurrency).toBe(1);
    expect(bull.opts.limiter).toBeDefined();

    for (const id of [`${RUN}-c1`, `${RUN}-c2`]) {
      await producer.add('agent.call', { runId: RUN, callId: id }, { jobId: jobId(id, 'call'), provider: 'anthropic' });
    }
    const orchestrator = producer.queue(QUEUE.orchestrator);
    await waitFor('both calls reported', async () => (await orchestrator.getJobCounts('waiting')).waiting === 2 || undefined, 15_000, 50);

    const rows = await ds.getRepository(AgentCallEntity).find({ where: { runId: RUN }, order: { seq: 'ASC' } });
    const [c1, c2] = rows;
    expect(rows).toHaveLength(2);
    expect(c1).toMatchObject({ status: 'failed', errorCode: 'RATE_LIMITED', retry: 0, retryOf: null, retryable: true, retryAfterMs: 1000 });
    expect(c1.error).toContain('HTTP 429');
    expect(c2).toMatchObject({ status: 'completed', valid: true, retry: 0, retryable: null, retryAfterMs: null });
    expect(c2).toMatchObject({ inputTokens: 1000, outputTokens: 200, costUsd: 0.002, costSource: 'table', billing: 'api', argv: null });
    // The queue as a whole waited out the retry-after: P2 had not started when P1 met the 429.
    expect(c2.startedAt!.getTime() - c1.finishedAt!.getTime()).toBeGreaterThanOrEqual(900);
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);

    // The worker wrote no reservation and did not touch the run: the reservations are the step writer's, as queued.
    expect(await reservations()).toEqual([
      [c1.id, 321],
      [c2.id, 321],
    ]);
    expect(await callSeq()).toBe(2);
    // The failed try reports like any other, with the verdict the engine decides the retry from.
    expect((await orchestrator.getJob(jobId(c1.id, 'done')))?.data).toEqual({
      runId: RUN,
      callId: c1.id,
      outcome: expect.objectContaining({ status: 'failed', error_code: 'RATE_LIMITED', retryable: true, retry_after_ms: 1000 }),
    });
    // It carries the outcome as written to the row, so the orchestrator need not wait for that write.
    expect((await orchestrator.getJob(jobId(c2.id, 'done')))?.data).toEqual({
      runId: RUN,
      callId: c2.id,
      outcome: expect.objectContaining({
        status: 'completed',
        valid: true,
        response_text: c2.responseText,
        input_tokens: 1000,
        output_tokens: 200,
        cost_usd: 0.002,
        retryable: null,
        finished_at: c2.finishedAt!.toISOString(),
      }),
    });

    // The engine's retry of c1 (a row the orchestrator queues) is a call like any other: asked, priced, reported.
    await ds.query(`UPDATE runs SET call_seq = 3 WHERE id = $1`, [RUN]);
    const c3 = await queueCall(3, 'P1', c1);
    await producer.add('agent.call', { runId: RUN, callId: c3 }, { jobId: jobId(c3, 'call'), provider: 'anthropic' });
    await waitFor('the retry reported', async () => (await orchestrator.getJob(jobId(c3, 'done'))) ?? undefined, 15_000, 50);
    expect(await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: c3 })).toMatchObject({ status: 'completed', valid: true, retry: 1, retryOf: c1.id, costSource: 'table' });
    expect(await ds.getRepository(AgentCallEntity).countBy({ runId: RUN })).toBe(3);
    // The counters were told of every try this worker recorded, with the outcome as recorded.
    expect(recorded.map((t) => [t.model, t.outcome.status, t.outcome.error_code, t.outcome.input_tokens])).toEqual([
      ['claude-haiku-4-5', 'failed', 'RATE_LIMITED', null],
      ['claude-haiku-4-5', 'completed', null, 1000],
      ['claude-haiku-4-5', 'completed', null, 1000],
    ]);
  });

  it('a second delivery of a finished try reports it again: nothing is called or written again', async () => {
    const before = server.requests.length;
    expect(await calls.execute(RUN, `${RUN}-c1`)).toEqual({ kind: 'done', callId: `${RUN}-c1` });
    expect(server.requests.length).toBe(before);
    expect(await ds.getRepository(AgentCallEntity).countBy({ runId: RUN })).toBe(3);
  });

  it('a delivery that finds its try still running (the worker died mid-call) records it INTERRUPTED and reports it retryable; the engine retries it', async () => {
    // A fresh call the "dead" worker had marked running; the queue's own worker is not involved.
    await ds.query(`UPDATE runs SET call_seq = 4 WHERE id = $1`, [RUN]);
    const c4 = await queueCall(4, 'P3');
    await ds.getRepository(AgentCallEntity).update({ id: c4 }, { status: 'running', startedAt: new Date() });
    const before = server.requests.length;
    const held = await reservations();

    expect(await calls.execute(RUN, c4)).toEqual({ kind: 'done', callId: c4 });
    expect(server.requests.length).toBe(before); // the provider was not asked again under the interrupted row
    const interrupted = await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: c4 });
    expect(interrupted).toMatchObject({ status: 'failed', errorCode: 'INTERRUPTED', valid: null, retryable: true });
    expect(interrupted.error).toMatch(/^interrupted: the provider-worker running this call stopped/);
    // Recorded and reported, nothing more: no retry row, no reservation, the run untouched.
    expect(await ds.getRepository(AgentCallEntity).countBy({ runId: RUN })).toBe(4);
    expect(await reservations()).toEqual(held);
    expect(await callSeq()).toBe(4);
    const orchestrator = producer.queue(QUEUE.orchestrator);
    expect((await orchestrator.getJob(jobId(c4, 'done')))?.data).toEqual({
      runId: RUN,
      callId: c4,
      outcome: expect.objectContaining({ status: 'failed', error_code: 'INTERRUPTED', retryable: true }),
    });

    // The engine's retry (queued by the orchestrator) is asked once and reports.
    const c5 = await queueCall(5, 'P3', interrupted);
    expect(await calls.execute(RUN, c5)).toEqual({ kind: 'done', callId: c5 });
    expect(await ds.getRepository(AgentCallEntity).findOneByOrFail({ id: c5 })).toMatchObject({ status: 'completed', valid: true, retry: 1, retryOf: c4 });
    expect(server.requests.length).toBe(before + 1);
    expect((await orchestrator.getJob(jobId(c5, 'done')))?.data).toEqual({
      runId: RUN,
      callId: c5,
      outcome: expect.objectContaining({ status: 'completed', valid: true, error: null }),
    });
  });
});
