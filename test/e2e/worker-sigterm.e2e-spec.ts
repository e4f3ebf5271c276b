import { queuePrefix } from '@roundtable/queues';
import path from 'node:path';
import { Job, Queue } from 'bullmq';
import IORedis from 'ioredis';
import { healthUrl, Pipeline, projectConfigFrom, startPipeline, startService, stopService, submitRun, TEST_REDIS_URL, waitFor, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(180_000);

const DEMO = path.resolve(__dirname, '../../examples/dd-demo/project.yaml');
const LATENCY_MS = 1500;
const DEMO_CALLS = ['proposer:P1', 'critic:C1', 'reviser:P2', 'critic:C2', 'engineer:I1', 'engineer:I1f1', 'validator:R1', 'synthesizer:S1'];

/**
 * Scaling a provider worker down mid-call: two provider-worker processes share agent.replay, every
 * replay call takes 1.5 s, and the one holding a call in flight gets SIGTERM. Worker.close() lets it
 * finish that call (its row completes, agent.done is sent), takes no new job, and the process exits 0;
 * the other worker carries the run to done. No call row is lost, duplicated or left running.
 */
describe('SIGTERM to a worker mid-job', () => {
  let pipeline: Pipeline;
  let redis: IORedis;
  let queue: Queue;

  beforeAll(async () => {
    pipeline = await startPipeline({ providerQueues: 'replay', providerWorkers: 2 });
    redis = new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue('agent.replay', { connection: redis, prefix: queuePrefix(pipeline.prefix, 'agent.replay') });
  });

  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await pipeline?.stop();
  });

  it('finishes the call in flight, exits 0, and the run ends done on the other worker with every call row completed', async () => {
    const workers = pipeline.services.filter((s) => s.name === 'provider-worker');
    expect(workers).toHaveLength(2);
    const config = projectConfigFrom(DEMO) as { providers: { replay: Record<string, unknown> } };
    config.providers.replay.latency_ms = LATENCY_MS;
    const res = await submitRun(pipeline.api, config);
    expect(res.status).toBe(202);
    const id = res.body.id as string;

    // The job in flight names the process running it (`processedBy` is host:pid).
    const inFlight = await waitFor(
      'an agent call in flight',
      async () => (await queue.getActive()).find((j: Job) => j.processedBy),
      60_000,
      25,
    );
    const victim = workers.find((w) => inFlight.processedBy!.endsWith(`:${w.process.pid}`))!;
    expect(victim).toBeDefined();
    const survivor = workers.find((w) => w !== victim)!;
    const callId = (inFlight.data as { callId: string }).callId;
    // Mid-call: the row says the provider has it (the replay provider now sleeps its 1.5 s).
    await waitFor('the call row to be running', async () => {
      const [row] = await pipeline.sql<{ status: string }>(`SELECT status FROM agent_calls WHERE id = $1`, [callId]);
      return row?.status === 'running' ? row : undefined;
    }, 5000, 10);

    const victimOps = await healthUrl(victim);
    const started = Date.now();
    const exited = stopService(victim, 30_000);
    // While it drains, it says it is not ready (a load balancer or KEDA's view), yet is still alive.
    const draining = await waitFor('the draining worker to answer /readyz 503', async () => {
      const r = await fetch(`${victimOps}/readyz`).catch(() => undefined);
      return r?.status === 503 ? r : undefined;
    }, 5000, 20);
    expect(((await draining.json()) as { message: string }).message).toBe('not ready: shutting down');
    const code = await exited;
    const stoppedAfterMs = Date.now() - started;

    expect({ code, signal: victim.process.signalCode }).toEqual({ code: 0, signal: null });
    // It waited for the call (up to 1.5 s left), not for a lock to expire or a kill.
    expect(stoppedAfterMs).toBeLessThan(10_000);
    expect(victim.output()).toMatch(/"msg":"SIGTERM: shutting down/);
    expect(victim.output()).toMatch(/"msg":"stopped in \d+ ms"/);

    // The call that was in flight completed on the worker that had it, and was recorded once.
    const [after] = await pipeline.sql<{ status: string; valid: boolean }>(`SELECT status, valid FROM agent_calls WHERE id = $1`, [callId]);
    expect(after).toEqual({ status: 'completed', valid: true });
    const finished = await Job.fromId(queue, inFlight.id!);
    expect(finished?.finishedOn).toBeDefined();
    expect(finished?.failedReason ?? null).toBeNull();
    expect(finished?.processedBy).toBe(inFlight.processedBy);

    const run = await waitForTerminal(pipeline, id, 120_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });

    // None lost, none doubled, none stuck: exactly the demo's eight requests, each completed once.
    const calls = await pipeline.sql<{ role: string; label: string; status: string; retry: number }>(
      `SELECT role, label, status, retry FROM agent_calls WHERE run_id = $1 ORDER BY seq`,
      [id],
    );
    expect(calls.map((c) => `${c.role}:${c.label}`)).toEqual(DEMO_CALLS);
    expect(calls.filter((c) => c.status !== 'completed' || c.retry !== 0)).toEqual([]);
    const [{ reserved }] = await pipeline.sql<{ reserved: number }>(`SELECT count(*)::int AS reserved FROM budget_reservations WHERE run_id = $1`, [id]);
    expect(reserved).toBe(0);

    // Every call after the SIGTERM ran on the survivor; the queue holds no failed or stalled job.
    const jobs = await queue.getJobs(['completed']);
    const later = jobs.filter((j) => (j.processedOn ?? 0) > started);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((j) => j.processedBy?.endsWith(`:${survivor.process.pid}`))).toBe(true);
    expect(await queue.getJobCounts('failed', 'active', 'waiting', 'delayed')).toMatchObject({ failed: 0, active: 0, waiting: 0, delayed: 0 });
  });

  it('a test-runner SIGTERMed during a test run exits 0 after that run; a replacement finishes the run; an idle orchestrator exits at once', async () => {
    const testsQueue = new Queue('tests', { connection: redis, prefix: queuePrefix(pipeline.prefix, 'tests') });
    try {
      const runner = pipeline.services.find((s) => s.name === 'test-runner')!;
      const res = await submitRun(pipeline.api, projectConfigFrom(DEMO));
      const id = res.body.id as string;
      await waitFor('a test run in flight', async () => ((await testsQueue.getActiveCount()) > 0 ? true : undefined), 60_000, 10);
      const started = Date.now();
      expect(await stopService(runner, 30_000)).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);
      // The test run it had was finished and recorded, not abandoned to the stalled-job check.
      const ops = await pipeline.sql<{ status: string }>(`SELECT status FROM workspace_ops WHERE run_id = $1 AND kind = 'tests'`, [id]);
      expect(ops).toEqual([{ status: 'done' }]);

      const replacement = await startService('test-runner', { DATABASE_URL: pipeline.db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: pipeline.prefix, WORKSPACE_ROOT: pipeline.workspaceRoot });
      pipeline.services.push(replacement);
      expect(await waitForTerminal(pipeline, id, 120_000)).toMatchObject({ status: 'done', verdict: 'ACCEPT' });

      const orchestrator = pipeline.services.find((s) => s.name === 'orchestrator')!;
      const idleStart = Date.now();
      expect(await stopService(orchestrator, 30_000)).toBe(0);
      expect(Date.now() - idleStart).toBeLessThan(3000);
    } finally {
      await testsQueue.close();
    }
  });
});
