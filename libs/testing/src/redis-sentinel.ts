import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { infoFields, nodeCommand, nodeError, RedisServerProcess, startRedisServerProcess, redisProcessGroup } from './redis-server-process';
import { waitFor } from './wait-for';

export interface RedisSentinelFixture {
  /** `redis+sentinel://127.0.0.1:<sentinelPort>/rtmaster` */
  url: string;
  /** The name the sentinel monitors the master under: `rtmaster`. */
  masterName: string;
  /** The master as started (after a failover, no longer the master). */
  masterPort: number;
  /** The replica as started (after a failover, the master). */
  replicaPort: number;
  sentinelPort: number;
  /** Every process as started: master, replica, sentinel. */
  pids: { master: number; replica: number; sentinel: number };
  /** SIGKILLs the master. */
  killMaster(): Promise<void>;
  /** Resolves once the sentinel names the replica as the master and the replica says role:master. */
  waitForFailover(timeoutMs?: number): Promise<void>;
  /** Kills all three processes and removes their directories; calling it again does nothing. */
  stop(): Promise<void>;
}

const MASTER_NAME = 'rtmaster';

/** The arguments of a plain (not clustered) redis-server in its own directory (the replica's first sync with no 5 s delay). */
function standaloneArgs(port: number, dir: string): string[] {
  return [
    '--port', String(port), '--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0',
    '--bind', '127.0.0.1', '--daemonize', 'no', '--dir', dir,
  ];
}

/**
 * A real Redis Sentinel setup on this machine (a master, its replica, one sentinel with
 * quorum 1 and a 1 s down-after), so Sentinel support is tested against a real failover: the
 * sentinel noticing the dead master, promoting the replica and answering with its address.
 */
export async function startRedisSentinel(): Promise<RedisSentinelFixture> {
  const { rootDir, processes, stop } = redisProcessGroup('rt-redis-sentinel');
  const dirFor = (name: string) => {
    const dir = path.join(rootDir, name);
    mkdirSync(dir);
    return dir;
  };

  try {
    const masterDir = dirFor('master');
    const master = await startRedisServerProcess(masterDir, (port) => standaloneArgs(port, masterDir));
    processes.push(master);
    const replicaDir = dirFor('replica');
    const replica = await startRedisServerProcess(replicaDir, (port) => [
      ...standaloneArgs(port, replicaDir),
      '--replicaof', '127.0.0.1', String(master.port),
    ]);
    processes.push(replica);
    await waitForNode(replica, 'master_link_status:up', async () => {
      const replication = infoFields(await nodeCommand(replica.port, ['INFO', 'replication']));
      return replication.master_link_status === 'up' ? true : undefined;
    });

    // The sentinel rewrites its config file as it learns (replicas, epochs), so it gets one of its own.
    const sentinelDir = dirFor('sentinel');
    const sentinel = await startRedisServerProcess(sentinelDir, (port) => {
      const confPath = path.join(sentinelDir, 'sentinel.conf');
      writeFileSync(
        confPath,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          'daemonize no',
          `dir ${sentinelDir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 1`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 5000`,
          '',
        ].join('\n'),
      );
      return [confPath, '--sentinel'];
    });
    processes.push(sentinel);
    // A replica the sentinel has not discovered yet (from the master's INFO) cannot be promoted.
    await waitForNode(sentinel, `the sentinel to know replica 127.0.0.1:${replica.port}`, async () => {
      const replicas = (await nodeCommand(sentinel.port, ['SENTINEL', 'REPLICAS', MASTER_NAME])) as string[][];
      const known = replicas.some((fields) => {
        const record = Object.fromEntries(fields.flatMap((v, i) => (i % 2 === 0 ? [[v, fields[i + 1]]] : [])));
        return Number(record.port) === replica.port && !/s_down|o_down|disconnected/.test(record.flags ?? '');
      });
      return known ? true : undefined;
    });

    return {
      url: `redis+sentinel://127.0.0.1:${sentinel.port}/${MASTER_NAME}`,
      masterName: MASTER_NAME,
      masterPort: master.port,
      replicaPort: replica.port,
      sentinelPort: sentinel.port,
      pids: { master: master.pid, replica: replica.pid, sentinel: sentinel.pid },
      stop,
      killMaster: () => master.kill(),
      async waitForFailover(timeoutMs = 20_000) {
        await waitForNode(
          sentinel,
          `the sentinel to name the replica 127.0.0.1:${replica.port} as master`,
          async () => {
            const addr = (await nodeCommand(sentinel.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME])) as string[] | null;
            if (Number(addr?.[1]) !== replica.port) return undefined;
            const replication = infoFields(await nodeCommand(replica.port, ['INFO', 'replication']));
            return replication.role === 'master' ? true : undefined;
          },
          timeoutMs,
        );
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** waitFor, failing with the node's log tail. */
async function waitForNode(node: RedisServerProcess, what: string, probe: () => Promise<true | undefined>, timeoutMs = 20_000): Promise<void> {
  try {
    await waitFor(what, probe, timeoutMs, 100);
  } catch (e) {
    throw nodeError(node, (e as Error).message);
  }
}
