import type { Cluster } from 'ioredis';
import { providerRegistryKey, type RunEventEnvelope } from '@roundtable/contracts';
import { runEventChannel, RunEventPublisher } from '@roundtable/events';
import { createRedisConnection, isCluster, scanKeys, type RedisClient } from '@roundtable/queues';
import { deleteRedisPrefix, publishStandInWorker, randomQueuePrefix, startRedisCluster, waitFor, type RedisClusterFixture } from '@roundtable/testing';
import { readProviderRegistry } from './provider-registry.reader';
import { RunEventHub } from './run-event-hub';
import { eventFrame } from './sse-frames';

// The api's Redis on a Redis Cluster: run events published by RunEventPublisher (one Cluster
// client) reach RunEventHub's subscription (another), in order, and again after a master is
// killed; the provider registry the workers write is read back whole.

jest.setTimeout(45_000);

const envelope = (runId: string, sequence: number): RunEventEnvelope => ({
  type: 'agent_call_queued',
  run_id: runId,
  sequence,
  payload: { call_id: `c${sequence}` },
  created_at: new Date().toISOString(),
});

/** Closes a client once: a second disconnect of a closed one leaves a timer that holds jest open. */
async function closeClient(client: RedisClient | undefined): Promise<void> {
  if (!client || client.status === 'end') return;
  await client.quit().catch(() => client.disconnect());
}

describe('run events and the provider registry on a Redis Cluster', () => {
  let fixture: RedisClusterFixture;
  let publisherClient: RedisClient;
  let subscriberClient: RedisClient;
  let hub: RunEventHub;
  let publisher: RunEventPublisher;
  const prefix = randomQueuePrefix('rt_int_hub');

  beforeAll(async () => {
    fixture = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    publisherClient = createRedisConnection(fixture.url);
    subscriberClient = createRedisConnection(fixture.url);
    hub = new RunEventHub(subscriberClient, prefix);
    publisher = new RunEventPublisher(publisherClient, prefix);
  }, 60_000);

  afterAll(async () => {
    hub?.onApplicationShutdown();
    await closeClient(publisherClient);
    await fixture?.stop();
  });

  it('delivers a published batch to the subscriber of each run, in order', async () => {
    expect(isCluster(publisherClient) && isCluster(subscriberClient)).toBe(true);
    const got: Record<string, { sequence: number; frame: string }[]> = { 'run-a': [], 'run-b': [] };
    const removers = await Promise.all(
      Object.keys(got).map((runId) => hub.subscribe(runId, (event, frame) => got[runId]!.push({ sequence: event.sequence, frame: frame.toString('utf8') }))),
    );
    expect(hub.listenerCount()).toBe(2);

    // One pipeline with both runs' events interleaved: PUBLISH has no key, so no slot to agree on.
    const batch = Array.from({ length: 30 }, (_, i) => envelope(i % 3 === 2 ? 'run-b' : 'run-a', i + 1));
    await publisher.publish(batch);
    const expected = (runId: string) => batch.filter((e) => e.run_id === runId);
    await waitFor('both runs to get their events', async () => (got['run-a']!.length === 20 && got['run-b']!.length === 10 ? true : undefined), 10_000);
    for (const runId of ['run-a', 'run-b']) {
      expect(got[runId]!.map((e) => e.sequence)).toEqual(expected(runId).map((e) => e.sequence));
      expect(got[runId]!.map((e) => e.frame)).toEqual(expected(runId).map(eventFrame));
    }
    for (const remove of removers) remove();
    expect(hub.listenerCount()).toBe(0);
  });

  it('delivers again after a master is killed (the subscription moves to a live node)', async () => {
    const runId = 'run-failover';
    const received: number[] = [];
    const remove = await hub.subscribe(runId, (event) => received.push(event.sequence));

    // The node holding the subscription, if it is a master, is the one whose loss the hub must survive.
    const cluster = publisherClient as Cluster;
    let subscriberPort: number | undefined;
    for (const node of cluster.nodes('all')) {
      const list = String(await node.client('LIST'));
      if (/\bsub=[1-9]/.test(list)) subscriberPort = node.options.port;
    }
    expect(subscriberPort).toBeDefined();
    const masterPorts = cluster.nodes('master').map((n) => n.options.port!);
    const victim = masterPorts.includes(subscriberPort!) ? subscriberPort! : (await fixture.masterOf(runEventChannel(prefix, runId))).port;

    await fixture.killMaster(victim);
    const killedAt = Date.now();
    await fixture.waitForFailover(victim, 20_000);
    const failedOverMs = Date.now() - killedAt;

    // Pub/sub is lossy: until the subscription is back, a publish reaches nobody. One must arrive within 15 s.
    let sequence = 0;
    let publishErrors = 0;
    const deadline = Date.now() + 15_000;
    while (received.length === 0 && Date.now() < deadline) {
      await publisher.publish([envelope(runId, ++sequence)]).catch(() => publishErrors++);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(received.length).toBeGreaterThan(0);
    const arrivedMs = Date.now() - killedAt;

    // Once back, a batch arrives whole and in order.
    const after = received.length;
    const batch = Array.from({ length: 10 }, () => envelope(runId, ++sequence));
    await publisher.publish(batch);
    await waitFor('the batch after the failover', async () => (received.length >= after + 10 ? true : undefined), 10_000);
    expect(received.slice(after)).toEqual(batch.map((e) => e.sequence));
    expect(received).toEqual([...received].sort((a, b) => a - b));
    remove();
    console.log(
      `killed ${victim === subscriberPort ? "the subscriber's master" : "a master (the subscriber was on a replica)"}; failover ${failedOverMs} ms; ` +
        `first event after ${arrivedMs} ms and ${sequence - 10} publishes (${publishErrors} rejected)`,
    );
  });

  it('reads every provider-worker record the workers wrote, and none expired or of another prefix', async () => {
    // Three workers, each with its own connection, as each provider-worker has.
    const workers = ['w-1', 'w-2', 'w-3'];
    for (const workerId of workers) {
      const own = createRedisConnection(fixture.url);
      try {
        const now = new Date().toISOString();
        const record = { worker_id: workerId, host: 'h', pid: 1, providers: [workerId === 'w-1' ? '*' : 'replay'], keys: {}, clis: {}, concurrency: 2, started_at: now, heartbeat_at: now };
        await own.set(providerRegistryKey(prefix, workerId), JSON.stringify(record), 'PX', 60_000);
      } finally {
        await closeClient(own);
      }
    }
    // The stand-in the api's tests use writes the same record, through any REDIS_URL form.
    const standIn = await publishStandInWorker(fixture.url, prefix, { worker_id: 'w-4-stand-in' });
    await publishStandInWorker(fixture.url, prefix, { worker_id: 'w-5-expired' }, 200);
    await publishStandInWorker(fixture.url, `${prefix}_other`, { worker_id: 'w-6-other-prefix' });
    await publisherClient.set(providerRegistryKey(prefix, 'w-7-not-json'), 'not json', 'PX', 60_000);
    await new Promise((r) => setTimeout(r, 300));

    const records = await readProviderRegistry(publisherClient, prefix);
    expect(records.map((r) => r.worker_id)).toEqual([...workers, standIn.worker_id]);
    expect(records[0]).toMatchObject({ worker_id: 'w-1', providers: ['*'], concurrency: 2 });
    expect(records[3]).toEqual(standIn);
    // The records share one hash tag: one slot, so one MGET reads them all.
    expect(new Set(await Promise.all(records.map((r) => publisherClient.cluster('KEYSLOT', providerRegistryKey(prefix, r.worker_id))))).size).toBe(1);

    await deleteRedisPrefix(publisherClient, prefix);
    await deleteRedisPrefix(publisherClient, `${prefix}_other`);
    expect(await scanKeys(publisherClient, `${prefix}*`)).toEqual([]);
    expect(await readProviderRegistry(publisherClient, prefix)).toEqual([]);
  });
});
