import { Processor } from '@nestjs/bullmq';
import type { INestApplicationContext } from '@nestjs/common';
import IORedis, { type Cluster } from 'ioredis';
import { QUEUE } from '@roundtable/contracts';
import {
  deleteRedisPrefix,
  randomQueuePrefix,
  startRedisCluster,
  startRedisSentinel,
  waitFor,
  type RedisClusterFixture,
  type RedisSentinelFixture,
} from '@roundtable/testing';
import { JobProducer } from './job-producer';
import { JobRoutes } from './job-routes';
import { startProcessorApp } from './processor-test-app';
import { queuePrefix } from './queue-prefix';
import { createRedisConnection, isCluster, type RedisClient } from './redis-connection';
import { scanKeys } from './redis-scan';
import { TypedProcessor } from './typed-processor';
import { workerOptionsFor } from './worker-options';

// The services' queue code (bullRoot, registerQueues, TypedProcessor, JobProducer, scanKeys,
// deleteRedisPrefix) on a real Redis Cluster and a real Sentinel setup: jobs go through, each
// queue stays in one hash slot, a killed master costs a wait and no job, and a service that stops
// leaves no connection behind.

jest.setTimeout(45_000);

/** Deliveries per job id, as the handler saw them. */
type Deliveries = Map<string, number>;

/** The `tests` queue's processor, recording each delivery of tests.run by job id. */
@Processor(QUEUE.tests, workerOptionsFor('tests'))
class RecordingTestsProcessor extends TypedProcessor {
  constructor(deliveries: Deliveries) {
    super(
      new JobRoutes('tests', QUEUE.tests, {
        'tests.run': async (_payload, job) => {
          deliveries.set(job.id!, (deliveries.get(job.id!) ?? 0) + 1);
        },
        'experiment.run': async () => undefined,
        'eval.score': async () => undefined,
      }),
      { service: 'probe' },
    );
  }
}

async function startRecordingApp(redisUrl: string, prefix: string, deliveries: Deliveries): Promise<INestApplicationContext> {
  return startProcessorApp({
    redisUrl,
    prefix,
    queues: [QUEUE.tests],
    providers: [{ provide: RecordingTestsProcessor, useFactory: () => new RecordingTestsProcessor(deliveries) }],
  });
}

const ids = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `j__${tag}-${i}`);

/** Adds a tests.run job per id through the producer, all at once; resolves once Redis has every one. */
async function addJobs(producer: JobProducer, jobIds: string[]): Promise<void> {
  await Promise.all(jobIds.map((id) => producer.add('tests.run', { runId: 'r1', opId: id, implementationId: 'i1' }, { jobId: id })));
}

async function allProcessed(deliveries: Deliveries, jobIds: string[], timeoutMs = 20_000): Promise<void> {
  await waitFor(
    `jobs ${jobIds[0]}… to be processed`,
    async () => {
      const missing = jobIds.filter((id) => !deliveries.get(id));
      if (missing.length) throw new Error(`${missing.length} not processed yet: ${missing.slice(0, 5).join(', ')}`);
      return true;
    },
    timeoutMs,
  );
}

/** Holds until the replicas of the master serving `key`'s slot have every write it acknowledged (WAIT runs on that master, in the key's pipeline). */
async function replicated(client: RedisClient, key: string): Promise<void> {
  const replies = await client.pipeline().exists(key).wait(1, 5_000).exec();
  expect(replies?.[1]).toEqual([null, 1]);
}

/** A connection BullMQ opened for a worker's blocking reads (named `<queue prefix>:<base64 name>:w:<worker name>`), closed by BullMQ's worker.close(). */
const WORKER_CONNECTION = /\bname=\S+:w:\S+/;

/** The client connections each running Redis (not sentinel) node has, besides replication links (flags S, M), the sentinel's own and the one asking. */
async function clientsLeft(ports: number[]): Promise<string[]> {
  const left: string[] = [];
  for (const port of ports) {
    const probe = new IORedis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      const list = String(await probe.client('LIST'));
      for (const line of list.split('\n').filter(Boolean)) {
        if (line.includes('cmd=client|list') || /\bname=sentinel-/.test(line) || /\bflags=[A-Za-z]*[SM]/.test(line)) continue;
        left.push(`${port}: ${line}`);
      }
    } finally {
      probe.disconnect();
    }
  }
  return left;
}

/**
 * Waits until no connection is left but BullMQ's own blocking ones. Those are reported, not
 * failed: after a cluster failover, BullMQ 5.81 / ioredis 5.11 sometimes leave the worker's
 * duplicated blocking Cluster client connected past worker.close() (a reconnect racing the quit;
 * seen in 1 run of 9 here). A service exits anyway (runService: useProcessExit). Everything
 * our code opens (the shared Cluster client bullRoot quits, the producer's and the test's clients)
 * must be gone.
 */
async function noConnectionLeft(ports: number[]): Promise<void> {
  let bullmqLeft: string[] = [];
  await waitFor(
    'every connection to be gone',
    async () => {
      const left = await clientsLeft(ports);
      const ours = left.filter((l) => !WORKER_CONNECTION.test(l));
      bullmqLeft = left.filter((l) => WORKER_CONNECTION.test(l));
      if (ours.length) throw new Error(ours.join('\n'));
      return true;
    },
    5_000,
  );
  if (bullmqLeft.length) console.warn(`BullMQ left its worker's blocking connection open after worker.close():\n${bullmqLeft.join('\n')}`);
}

/** Closes a client once: a second disconnect of a closed one leaves a timer that holds jest open. */
async function closeClient(client: RedisClient | undefined): Promise<void> {
  if (!client || client.status === 'end') return;
  await client.quit().catch(() => client.disconnect());
}

/** app.close() must not wait on a connection that is never closed: it returns in a few seconds. */
async function closePromptly(app: INestApplicationContext): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    app.close(),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('app.close() hung for 10 s')), 10_000);
    }),
  ]).finally(() => clearTimeout(timer));
  return Date.now() - started;
}

describe('queues on a Redis Cluster (3 masters, 3 replicas)', () => {
  let fixture: RedisClusterFixture;
  let redis: RedisClient;
  let producer: JobProducer;
  let app: INestApplicationContext | undefined;
  const deliveries: Deliveries = new Map();
  const prefix = randomQueuePrefix('rt_int_cluster');
  const testsKeys = `${queuePrefix(prefix, QUEUE.tests)}:${QUEUE.tests}:*`;
  let killedPort: number | undefined;

  beforeAll(async () => {
    fixture = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    redis = createRedisConnection(fixture.url);
    producer = new JobProducer(redis, prefix);
    app = await startRecordingApp(fixture.url, prefix, deliveries);
  }, 60_000);

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await producer?.close().catch(() => undefined);
    await closeClient(redis);
    await fixture?.stop();
  });

  it('processes every job added, with every key of the tests queue on the master of its hash tag', async () => {
    expect(isCluster(redis)).toBe(true);
    const first = ids('first', 20);
    await addJobs(producer, first);
    await allProcessed(deliveries, first);
    expect(first.map((id) => deliveries.get(id))).toEqual(first.map(() => 1));

    const { port } = await fixture.masterOf('{tests}');
    const masters = (redis as Cluster).nodes('master');
    expect(masters).toHaveLength(3);
    const keysByPort = new Map<number, string[]>();
    for (const node of masters) keysByPort.set(node.options.port!, await scanKeys(node, testsKeys));
    expect(keysByPort.get(port)!.length).toBeGreaterThan(0);
    expect(keysByPort.get(port)).toEqual(expect.arrayContaining([`${queuePrefix(prefix, QUEUE.tests)}:${QUEUE.tests}:meta`]));
    for (const [p, keys] of keysByPort) if (p !== port) expect(keys).toEqual([]);
    // scanKeys on the Cluster client walks every master and finds the same keys.
    expect((await scanKeys(redis, testsKeys)).sort()).toEqual([...keysByPort.get(port)!].sort());
  });

  it('adds jobs to an agent.<provider> queue, its keys in its own slot', async () => {
    await producer.add('agent.call', { runId: 'r1', callId: 'c1' }, { jobId: 'j__agent-1', provider: 'x' });
    await producer.add('agent.call', { runId: 'r1', callId: 'c2' }, { jobId: 'j__agent-2', provider: 'x' });
    const queue = producer.queue('agent.x');
    expect(queue.opts.prefix).toBe(`${prefix}:{agent.x}`);
    expect(await queue.getJobCounts('wait')).toEqual({ wait: 2 });
    expect((await queue.getJob('j__agent-2'))?.data).toMatchObject({ runId: 'r1', callId: 'c2' });

    const { port } = await fixture.masterOf('{agent.x}');
    const master = (redis as Cluster).nodes('master').find((n) => n.options.port === port)!;
    const onItsMaster = await scanKeys(master, `${prefix}:{agent.x}:*`);
    expect(onItsMaster.length).toBeGreaterThan(0);
    expect((await scanKeys(redis, `${prefix}:{agent.x}:*`)).sort()).toEqual(onItsMaster.sort());
  });

  it('loses no job when the master serving the queue is killed: jobs added during and after the failover are all processed', async () => {
    const before = ids('before', 10);
    await addJobs(producer, before);
    await allProcessed(deliveries, before);
    // Replication is asynchronous: what the master acknowledged last may not have reached its
    // replica when it dies. Waiting for the replica first keeps this test about our code.
    await replicated(redis, `${queuePrefix(prefix, QUEUE.tests)}:${QUEUE.tests}:meta`);

    const { port } = await fixture.masterOf('{tests}');
    await fixture.killMaster(port);
    killedPort = port;
    const killedAt = Date.now();
    // Sent to a master that is gone: the adds wait out the failover (no retry by this test).
    const during = ids('during', 10);
    const addingDuring = addJobs(producer, during).then(() => Date.now() - killedAt);
    const promoted = await fixture.waitForFailover(port, 20_000);
    expect(promoted.port).not.toBe(port);
    expect(await fixture.masterOf('{tests}')).toEqual(promoted);
    const duringAddedAfterMs = await addingDuring;

    const after = ids('after', 10);
    await addJobs(producer, after);
    await allProcessed(deliveries, [...during, ...after], 30_000);
    // The queue's keys moved with its slot: all on the promoted master now.
    const onPromoted = await scanKeys((redis as Cluster).nodes('master').find((n) => n.options.port === promoted.port)!, testsKeys);
    expect(onPromoted.length).toBeGreaterThan(0);
    expect((await scanKeys(redis, testsKeys)).sort()).toEqual(onPromoted.sort());

    // At least once; those acknowledged and replicated before the kill, exactly once.
    for (const id of [...during, ...after]) expect(deliveries.get(id)).toBeGreaterThanOrEqual(1);
    expect(before.map((id) => deliveries.get(id))).toEqual(before.map(() => 1));
    console.log(`cluster failover: adds sent during it resolved after ${duringAddedAfterMs} ms; deliveries > 1: ${[...deliveries].filter(([, n]) => n > 1).length}`);
  });

  it('closes the app promptly: the workers, the queues and the shared Cluster client', async () => {
    const ms = await closePromptly(app!);
    app = undefined;
    expect(ms).toBeLessThan(10_000);
  });

  it('deleteRedisPrefix deletes the prefix on every master', async () => {
    // A key on each master, so the deletion must reach all three.
    const tagged: string[] = [];
    const ports = new Set<number>();
    for (let i = 0; ports.size < 3; i++) {
      const key = `${prefix}:{spread-${i}}:k`;
      const { port } = await fixture.masterOf(key);
      if (ports.has(port)) continue;
      ports.add(port);
      tagged.push(key);
      await redis.set(key, '1');
    }
    const present = await scanKeys(redis, `${prefix}:*`);
    expect(present).toEqual(expect.arrayContaining(tagged));
    expect(await deleteRedisPrefix(redis, prefix)).toBe(present.length);
    expect(await scanKeys(redis, `${prefix}:*`)).toEqual([]);
  });

  it('leaves no client connection on any node once the app, the producer and the test client are closed', async () => {
    await producer.close();
    await closeClient(redis);
    const running = fixture.nodes.filter((n) => n.port !== killedPort).map((n) => n.port);
    await noConnectionLeft(running);
  });
});

describe('queues on Redis Sentinel (a master, a replica, one sentinel)', () => {
  let fixture: RedisSentinelFixture;
  let redis: RedisClient;
  let producer: JobProducer;
  let app: INestApplicationContext | undefined;
  const deliveries: Deliveries = new Map();
  const prefix = randomQueuePrefix('rt_int_sentinel');

  beforeAll(async () => {
    fixture = await startRedisSentinel();
    redis = createRedisConnection(fixture.url);
    // While the master is down it keeps being sent to it and says so; its commands wait meanwhile.
    redis.on('error', () => {});
    producer = new JobProducer(redis, prefix);
    app = await startRecordingApp(fixture.url, prefix, deliveries);
  }, 60_000);

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await producer?.close().catch(() => undefined);
    await closeClient(redis);
    await fixture?.stop();
  });

  it('processes every job added through the master the sentinel names', async () => {
    const first = ids('first', 20);
    await addJobs(producer, first);
    await allProcessed(deliveries, first);
    expect(first.map((id) => deliveries.get(id))).toEqual(first.map(() => 1));
    const probe = new IORedis({ host: '127.0.0.1', port: fixture.masterPort, lazyConnect: true });
    try {
      expect(await probe.exists(`${queuePrefix(prefix, QUEUE.tests)}:${QUEUE.tests}:meta`)).toBe(1);
    } finally {
      probe.disconnect();
    }
  });

  it('loses no job when the master is killed: jobs added during and after the failover are all processed', async () => {
    const before = ids('before', 10);
    await addJobs(producer, before);
    await allProcessed(deliveries, before);
    expect(await (redis as IORedis).wait(1, 5_000)).toBe(1);

    await fixture.killMaster();
    const killedAt = Date.now();
    const during = ids('during', 10);
    const addingDuring = addJobs(producer, during).then(() => Date.now() - killedAt);
    await fixture.waitForFailover(20_000);
    const duringAddedAfterMs = await addingDuring;

    const after = ids('after', 10);
    await addJobs(producer, after);
    await allProcessed(deliveries, [...during, ...after], 30_000);

    for (const id of [...during, ...after]) expect(deliveries.get(id)).toBeGreaterThanOrEqual(1);
    expect(before.map((id) => deliveries.get(id))).toEqual(before.map(() => 1));
    console.log(`sentinel failover: adds sent during it resolved after ${duringAddedAfterMs} ms; deliveries > 1: ${[...deliveries].filter(([, n]) => n > 1).length}`);
  });

  it('closes the app promptly, and leaves no client connection once the producer and the test client are closed too', async () => {
    const ms = await closePromptly(app!);
    app = undefined;
    expect(ms).toBeLessThan(10_000);
    expect(await deleteRedisPrefix(redis, prefix)).toBeGreaterThan(0);
    expect(await scanKeys(redis, `${prefix}:*`)).toEqual([]);
    await producer.close();
    await closeClient(redis);
    await noConnectionLeft([fixture.replicaPort]);
  });
});
