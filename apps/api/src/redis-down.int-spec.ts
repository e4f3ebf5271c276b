import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { jobId, QUEUE } from '@roundtable/contracts';
import { OutboxEntity, RunEntity } from '@roundtable/persistence';
import { createRedisConnection, queuePrefix } from '@roundtable/queues';
import { startTcpProxy, waitFor, type TcpProxy } from '@roundtable/testing';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(60_000);

const REDIS_PORT = Number(new URL(process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379').port || 6379);

/** The api reaches Redis through a proxy the test takes down; the real Redis stays up for everyone else. */
let proxy: TcpProxy;
let api: ApiHarness;

beforeAll(async () => {
  proxy = await startTcpProxy(REDIS_PORT);
  // The write quota on, so its Redis bucket is on the path too.
  api = await startApi({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_WRITES_PER_MIN: 100 });
});
afterAll(async () => {
  proxy?.restore();
  await api?.close();
  await proxy?.close();
});

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = Date.now();
  const value = await work();
  return { ms: Date.now() - started, value };
}

describe('POST /v1/runs with Redis gone', () => {
  it('answers 202 within 2 s, stores the run with run.start left in the outbox, and the job goes once Redis is back', async () => {
    proxy.takeDown();
    const key = randomUUID();
    const { ms, value: res } = await timed(() =>
      fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(demoConfig()) }),
    );
    // The bound (2 s), loosely: a behaviour, not a benchmark.
    expect(ms).toBeLessThan(2500);
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await api.ds.getRepository(RunEntity).findOneByOrFail({ id })).toMatchObject({ status: 'queued', idempotencyKey: key });
    expect((await api.ds.getRepository(OutboxEntity).findOneByOrFail({ runId: id })).sentAt).toBeNull();
    // The registry is in Redis too: the run's providers went unchecked, and its events say so.
    const events: { type: string; payload: { reason: string } }[] = await api.ds.query(`SELECT type, payload FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(events.map((e) => e.type)).toEqual(['run_created', 'provider_unserved']);
    expect(events[1].payload.reason).toMatch(/the provider registry \(Redis\) did not answer within 500 ms: provider "replay" was not checked/);

    // /readyz says which dependency is missing, within its own deadline.
    const ready = await timed(() => fetch(`${api.base}/readyz`));
    expect(ready.ms).toBeLessThan(3500);
    expect(ready.value.status).toBe(503);
    expect(JSON.stringify(await ready.value.json())).toMatch(/redis/i);

    proxy.restore();
    // The send the reply stopped waiting for goes on when ioredis reconnects; the sweeper covers a process that died meanwhile.
    const redis = createRedisConnection(api.env.REDIS_URL);
    const queue = new Queue(QUEUE.orchestrator, { connection: redis, prefix: queuePrefix(api.env.QUEUE_PREFIX, QUEUE.orchestrator) });
    try {
      await waitFor('run.start in the queue', async () => ((await queue.getJob(jobId(id, 'start')))?.name === 'run.start' ? true : undefined), 20_000);
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });
});

describe('cancel and resume with Redis gone', () => {
  it('answer 202 within 2 s each, with their jobs left in the outbox for the sweeper', async () => {
    const submitted = async () => {
      const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
      expect(res.status).toBe(202);
      return ((await res.json()) as { id: string }).id;
    };
    const toCancel = await submitted();
    const toResume = await submitted();
    await api.ds.query(`UPDATE runs SET status = 'halted', halt_reason = 'test' WHERE id = $1`, [toResume]);
    proxy.takeDown();
    try {
      for (const [id, action] of [
        [toCancel, 'cancel'],
        [toResume, 'resume'],
      ] as const) {
        const { ms, value: res } = await timed(() => fetch(`${api.base}/v1/runs/${id}/${action}`, { method: 'POST' }));
        expect({ action, status: res.status }).toEqual({ action, status: 202 });
        // The bound (2 s) for a write with Redis gone, loosely: a behaviour, not a benchmark.
        expect(ms).toBeLessThan(2500);
        const rows: { sent_at: Date | null }[] = await api.ds.query(`SELECT sent_at FROM outbox WHERE run_id = $1 AND job_name = $2`, [id, `run.${action}`]);
        expect(rows).toEqual([{ sent_at: null }]);
      }
    } finally {
      proxy.restore();
    }
  });
});
