import type { Redis } from 'ioredis';
import { TerminusReadiness } from '@roundtable/observability';
import type { JobProducer } from '@roundtable/queues';
import { INFRA } from '@roundtable/service';
import { AgentCallEntity, RunEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';
import { ApiError } from './api-error';
import { QueueBoard } from './queue-board';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';

jest.setTimeout(30_000);

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

describe('health', () => {
  it('/healthz answers ok', async () => {
    const res = await fetch(`${api.base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz checks Postgres and Redis', async () => {
    const res = await fetch(`${api.base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('answers 503 naming the dependency that does not answer', async () => {
    // A lost Redis makes ioredis queue commands forever (BullMQ needs maxRetriesPerRequest: null).
    const hungRedis = { ping: () => new Promise<never>(() => undefined) } as unknown as Redis;
    const health = new HealthController(new ReadinessService(api.app.get(TerminusReadiness), api.ds, hungRedis, 200));
    const err = await health.ready().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).getStatus()).toBe(503);
    expect((err as ApiError).getResponse()).toEqual({
      error: 'not_ready',
      message: 'not ready: redis: no answer within 200 ms',
      checks: { postgres: 'ok', redis: 'no answer within 200 ms' },
    });
  });
});

describe('errors', () => {
  it('answers an unknown route with a JSON 404 and no stack', async () => {
    const res = await fetch(`${api.base}/v1/nothing-here`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body).toEqual({ error: 'not_found', message: expect.stringContaining('/v1/nothing-here') });
  });

  it('answers a body over API_BODY_LIMIT with 413', async () => {
    const res = await fetch(`${api.base}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: `project: x\nobjective: "${'y'.repeat(100 * 1024)}"\n`,
    });
    expect(res.status).toBe(413);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.error).toBe('entity_too_large');
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  });
});

describe('Bull Board', () => {
  it('serves the board at /admin/queues', async () => {
    const res = await fetch(`${api.base}/admin/queues`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toMatch(/<html/i);
  });

  it('shows the fixed queues at start and discovers agent queues from agent_calls', async () => {
    const names = async (): Promise<string[]> => {
      const res = await fetch(`${api.base}/admin/queues/api/queues`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { queues: { name: string }[] }).queues.map((q) => q.name).sort();
    };
    expect(await names()).toEqual(['orchestrator', 'tests', 'workspace']);

    const post = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
    const { id } = (await post.json()) as { id: string };
    await api.ds.getRepository(AgentCallEntity).insert({
      id: `${id}-c1`,
      runId: id,
      seq: 1,
      stage: 'PROPOSE',
      role: 'proposer',
      provider: 'replay',
      model: 'm',
      status: 'queued',
      promptHash: 'h',
      messages: [],
    } as never);
    await api.app.get(QueueBoard).refresh();
    expect(await names()).toEqual(['agent.replay', 'orchestrator', 'tests', 'workspace']);
    expect(await api.ds.getRepository(RunEntity).countBy({ id })).toBe(1);
  });

  it('shows on a job card what a person needs (run, role, label, stage), and on each queue what it carries', async () => {
    const producer = api.app.get<JobProducer>(INFRA.producer);
    const card = { role: 'critic', label: 'C1', stage: 'CRITIQUE' };
    await producer.add('agent.call', { runId: 'run_card01', callId: 'run_card01-c2', card }, { jobId: 'j__card__call', provider: 'replay' });
    await producer.add('tests.run', { runId: 'run_card01', opId: 'op_t1', implementationId: 'i1' }, { jobId: 'j__card__tests' });
    await api.app.get(QueueBoard).refresh();
    const board = async (queue: string) => {
      const res = await fetch(`${api.base}/admin/queues/api/queues?activeQueue=${encodeURIComponent(queue)}&status=latest&page=1&jobsPerPage=10`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { queues: { name: string; displayName?: string; jobs: { id: string; name: string; data: unknown }[] }[] }).queues.find((q) => q.name === queue)!;
    };
    const agent = await board('agent.replay');
    expect(agent.displayName).toBe('agent.replay · calls to replay');
    expect(agent.jobs.find((j) => j.id === 'j__card__call')).toMatchObject({
      name: 'agent.call · run run_card01 · critic · C1 · CRITIQUE',
      data: { runId: 'run_card01', callId: 'run_card01-c2', card },
    });
    const tests = await board('tests');
    expect(tests.displayName).toBe('tests · test runs');
    expect(tests.jobs.find((j) => j.id === 'j__card__tests')?.name).toBe('tests.run · run run_card01 · op op_t1');
  });
});
