import type { RedisClient } from './redis-connection';
import { Processor } from '@nestjs/bullmq';
import type { INestApplicationContext } from '@nestjs/common';
import { EntityNotFoundError } from 'typeorm';
import { jobId, QUEUE } from '@roundtable/contracts';
import { deleteRedisPrefix, randomQueuePrefix, TEST_REDIS_URL, waitFor } from '@roundtable/testing';
import { JobRoutes, type HandlerTable } from './job-routes';
import { JobProducer } from './job-producer';
import { startProcessorApp } from './processor-test-app';
import { QUEUE_DEFAULTS } from './queue-defaults';
import { createRedisConnection } from './redis-connection';
import { TypedProcessor } from './typed-processor';
import { workerOptionsFor } from './worker-options';

jest.setTimeout(30_000);

/** A `tests` queue processor whose handler table the test gives. */
@Processor(QUEUE.tests, workerOptionsFor('tests'))
class ProbeTestsProcessor extends TypedProcessor {
  constructor(handlers: HandlerTable) {
    super(new JobRoutes('tests', QUEUE.tests, handlers), { service: 'probe' });
  }
}

describe('TypedProcessor: infrastructure errors and permanent failures', () => {
  let redis: RedisClient;
  let prefix: string;
  let producer: JobProducer;
  let app: INestApplicationContext | undefined;

  const start = async (handlers: HandlerTable) => {
    app = await startProcessorApp({
      redisUrl: TEST_REDIS_URL,
      prefix,
      queues: [QUEUE.tests],
      // The tests queue also carries an experiment's method run (issue 24); these cases exercise tests.run.
      providers: [{ provide: ProbeTestsProcessor, useFactory: () => new ProbeTestsProcessor({ 'experiment.run': async () => undefined, 'eval.score': async () => undefined, ...handlers }) }],
    });
  };

  beforeEach(() => {
    redis = createRedisConnection(TEST_REDIS_URL);
    prefix = randomQueuePrefix('rt_int_tw');
    producer = new JobProducer(redis, prefix);
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    await producer.close();
    await deleteRedisPrefix(redis, prefix);
    redis.disconnect();
  });

  it('refuses to be built without a handler for every job its queue carries', () => {
    expect(() => new ProbeTestsProcessor({})).toThrow('the processor of queue tests has no handler for: tests.run, experiment.run, eval.score (add each to its handler table)');
  });

  it('retries a job past its attempts while Postgres is unreachable, without spending them', async () => {
    // tests jobs get two attempts: three refused connections in a row would fail one for good.
    expect(QUEUE_DEFAULTS.tests.job.attempts).toBe(2);
    let calls = 0;
    await start({
      'tests.run': async () => {
        if (++calls <= 3) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      },
    });
    const id = jobId('op1', 'tests');
    await producer.add('tests.run', { runId: 'r1', opId: 'op1', implementationId: 'i1' }, { jobId: id });
    await waitFor('the job to complete', async () => ((await (await producer.queue(QUEUE.tests).getJob(id))?.getState()) === 'completed' ? true : undefined), 20_000);
    const job = (await producer.queue(QUEUE.tests).getJob(id))!;
    expect(calls).toBe(4);
    expect(job.attemptsMade).toBe(1); // only the successful delivery counted
  });

  it('fails a job whose row does not exist at once (UnrecoverableError), and an ordinary error after its attempts', async () => {
    const deliveries: Record<string, number> = {};
    await start({
      'tests.run': async (p) => {
        deliveries[p.opId] = (deliveries[p.opId] ?? 0) + 1;
        if (p.opId === 'missing') throw new EntityNotFoundError('WorkspaceOpEntity', { id: p.opId });
        throw new Error('the test command crashed the runner');
      },
    });
    await producer.add('tests.run', { runId: 'r1', opId: 'missing', implementationId: 'i1' }, { jobId: 'j__missing' });
    await producer.add('tests.run', { runId: 'r1', opId: 'broken', implementationId: 'i1' }, { jobId: 'j__broken' });
    const failed = async (id: string) => ((await (await producer.queue(QUEUE.tests).getJob(id))?.getState()) === 'failed' ? true : undefined);
    await waitFor('both jobs to fail', async () => ((await failed('j__missing')) && (await failed('j__broken')) ? true : undefined), 20_000);
    expect(deliveries).toEqual({ missing: 1, broken: 2 });
    expect((await producer.queue(QUEUE.tests).getJob('j__missing'))!.failedReason).toMatch(/a retry cannot make it exist/);
  });
});
