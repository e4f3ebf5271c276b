import IORedis, { Cluster } from 'ioredis';
import { startRedisCluster, RedisClusterFixture } from './redis-cluster';
import { startRedisSentinel, RedisSentinelFixture } from './redis-sentinel';
import { infoFields, nodeCommand } from './redis-server-process';

// The fixtures that cluster and sentinel support are tested on: that they start real
// topologies a stock ioredis client works against, fail over for real, and leave nothing behind.

/** Closes a client once: a second disconnect() of a closed one leaves a 2 s timer that holds jest open. */
function closeClient(client: IORedis | Cluster | undefined): void {
  if (client && client.status !== 'end') client.disconnect();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startRedisCluster', () => {
  let fixture: RedisClusterFixture;
  let client: Cluster;
  beforeAll(async () => {
    fixture = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    client = new IORedis.Cluster(fixture.nodes.map(({ port }) => ({ host: '127.0.0.1', port })));
  });
  afterAll(async () => {
    closeClient(client);
    await fixture?.stop();
  });

  it('comes up as 3 masters and 3 replicas, every node saying cluster_state:ok', async () => {
    expect(fixture.nodes).toHaveLength(6);
    expect(fixture.url).toBe(`redis+cluster://${fixture.nodes.map(({ port }) => `127.0.0.1:${port}`).join(',')}`);
    const roles = [];
    for (const { port } of fixture.nodes) {
      expect(infoFields(await nodeCommand(port, ['CLUSTER', 'INFO'])).cluster_state).toBe('ok');
      roles.push(infoFields(await nodeCommand(port, ['INFO', 'replication'])).role);
    }
    expect(roles.sort()).toEqual(['master', 'master', 'master', 'slave', 'slave', 'slave']);
  });

  it('serves keys in different slots through a Cluster client, each on the master masterOf names', async () => {
    // Keys until every master has one: the client must follow MOVED to each of them.
    const keyOfMaster = new Map<number, string>();
    for (let i = 0; keyOfMaster.size < 3; i++) {
      const key = `key-${i}`;
      const { port } = await fixture.masterOf(key);
      if (!keyOfMaster.has(port)) keyOfMaster.set(port, key);
    }
    for (const [port, key] of keyOfMaster) {
      await client.set(key, `value of ${key}`);
      expect(await client.get(key)).toBe(`value of ${key}`);
      // That master holds it (another node would answer MOVED).
      expect(await nodeCommand(port, ['GET', key])).toBe(`value of ${key}`);
    }
  });

  it('fails over when the master of a key is killed, and the Cluster client reads the key again', async () => {
    const key = 'failover-key';
    // WAIT 1 in the same pipeline runs on the key's master: its replica has the key before the kill.
    const [[, setReply], [, acked]] = (await client.pipeline().set(key, 'survives').wait(1, 2_000).exec())!;
    expect([setReply, acked]).toEqual(['OK', 1]);
    const before = await fixture.masterOf(key);

    await fixture.killMaster(before.port);
    const promoted = await fixture.waitForFailover(before.port, 20_000);

    expect(promoted.port).not.toBe(before.port);
    expect(await fixture.masterOf(key)).toEqual(promoted);
    expect(await client.get(key)).toBe('survives');
  });

  it('stop() kills every node it started, and can be called again', async () => {
    closeClient(client);
    const pids = fixture.nodes.map(({ pid }) => pid);
    expect(pids.filter(isAlive).length).toBeGreaterThan(0);
    await fixture.stop();
    expect(pids.filter(isAlive)).toEqual([]);
    await fixture.stop();
  });
});

describe('startRedisSentinel', () => {
  let fixture: RedisSentinelFixture;
  let client: IORedis;
  beforeAll(async () => {
    fixture = await startRedisSentinel();
    client = new IORedis({ sentinels: [{ host: '127.0.0.1', port: fixture.sentinelPort }], name: fixture.masterName });
    // Until the failover is over it keeps being sent to the dead master and says so; its writes wait meanwhile.
    client.on('error', () => {});
  });
  afterAll(async () => {
    closeClient(client);
    await fixture?.stop();
  });

  it('hands a sentinel client the master, and after the master is killed, the promoted replica', async () => {
    expect(fixture.url).toBe(`redis+sentinel://127.0.0.1:${fixture.sentinelPort}/rtmaster`);
    // Replication is asynchronous: WAIT 1 makes sure the replica has the key before its master is killed.
    const [[, setReply], [, acked]] = (await client.pipeline().set('before', '1').wait(1, 2_000).exec())!;
    expect([setReply, acked]).toEqual(['OK', 1]);
    expect(await nodeCommand(fixture.masterPort, ['GET', 'before'])).toBe('1');

    await fixture.killMaster();
    await fixture.waitForFailover(20_000);

    await client.set('after', '2');
    expect(await nodeCommand(fixture.replicaPort, ['GET', 'after'])).toBe('2');
    expect(await nodeCommand(fixture.replicaPort, ['GET', 'before'])).toBe('1');
  });

  it('stop() kills every process it started', async () => {
    closeClient(client);
    const pids = Object.values(fixture.pids);
    await fixture.stop();
    expect(pids.filter(isAlive)).toEqual([]);
  });
});
