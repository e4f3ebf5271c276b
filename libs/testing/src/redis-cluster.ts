import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  infoFields,
  nodeCommand,
  nodeError,
  REDIS_CLI_BIN,
  RedisServerProcess,
  redisProcessGroup,
  startRedisServerProcess,
  unusedPort,
} from './redis-server-process';
import { waitFor } from './wait-for';

const execFileAsync = promisify(execFile);

export interface RedisClusterOptions {
  /** Masters, each serving a share of the 16384 slots (redis-cli needs at least 3). Default 3. */
  masters?: number;
  /** Replicas of each master. Default 1. */
  replicasPerMaster?: number;
}

export interface RedisClusterFixture {
  /** `redis+cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,...`: every node's address, masters and replicas. */
  url: string;
  /** Every node as started (a killed one stays listed). */
  nodes: { port: number; pid: number }[];
  /** The master serving the key's slot now, as the cluster itself says (CLUSTER KEYSLOT, CLUSTER SLOTS). */
  masterOf(key: string): Promise<{ port: number }>;
  /** SIGKILLs the master on `port`, after noting the slots it serves (for waitForFailover). */
  killMaster(port: number): Promise<void>;
  /** Resolves, with the node now serving them, once every surviving node says cluster_state:ok and the killed master's slots are served by another node. */
  waitForFailover(deadPort: number, timeoutMs?: number): Promise<{ port: number }>;
  /** Kills every node and removes their directories; calling it again does nothing. */
  stop(): Promise<void>;
}

/** One range of CLUSTER SLOTS: [start, end, [ip, port, id, ...], ...replicas]. */
type SlotRange = [number, number, [string, number, ...unknown[]], ...unknown[]];

interface OwnedSlots {
  start: number;
  end: number;
}

const TOTAL_SLOTS = 16384;

/** The port of the master serving `slot` in a CLUSTER SLOTS reply, if any range covers it. */
function masterPortOfSlot(slots: SlotRange[], slot: number): number | undefined {
  const range = slots.find(([start, end]) => slot >= start && slot <= end);
  return range ? Number(range[2][1]) : undefined;
}

/**
 * A real Redis Cluster on this machine (redis-server processes, cluster-enabled, joined by
 * `redis-cli --cluster create`), so cluster support is tested against MOVED redirects, slot
 * ownership and replica promotion as Redis does them, not a mock's idea of them.
 */
export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<RedisClusterFixture> {
  const masters = opts.masters ?? 3;
  const replicasPerMaster = opts.replicasPerMaster ?? 1;
  if (masters < 3) throw new Error(`startRedisCluster: a Redis Cluster needs at least 3 masters (asked for ${masters})`);
  if (replicasPerMaster < 0) throw new Error(`startRedisCluster: replicasPerMaster must be >= 0 (got ${replicasPerMaster})`);

  const { rootDir, processes, stop } = redisProcessGroup('rt-redis-cluster');

  try {
    const nodeCount = masters * (1 + replicasPerMaster);
    const started = await Promise.allSettled(
      Array.from({ length: nodeCount }, (_, i) => {
        const dir = path.join(rootDir, `node-${i}`);
        mkdirSync(dir);
        return startRedisServerProcess(dir, async (port) => [
          '--port', String(port),
          // The bus port is picked too: port + 10000 (the default) may be taken or above 65535.
          '--cluster-port', String(await unusedPort()),
          '--cluster-enabled', 'yes',
          '--cluster-config-file', 'nodes.conf',
          '--cluster-node-timeout', '1000',
          '--save', '',
          '--appendonly', 'no',
          // A replica's first sync starts at once, not after Redis's default 5 s wait for more replicas.
          '--repl-diskless-sync-delay', '0',
          '--bind', '127.0.0.1',
          '--daemonize', 'no',
          '--dir', dir,
        ]);
      }),
    );
    for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;

    const addresses = processes.map((p) => `127.0.0.1:${p.port}`);
    try {
      await execFileAsync(
        REDIS_CLI_BIN,
        ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicasPerMaster), '--cluster-yes'],
        { timeout: 30_000 },
      );
    } catch (e) {
      const { stdout, stderr, message } = e as { stdout?: string; stderr?: string; message: string };
      throw new Error(`redis-cli --cluster create ${addresses.join(' ')} failed: ${message}\n${stdout ?? ''}\n${stderr ?? ''}`);
    }

    // Joined is not ready: each node must see the whole cluster healthy, and each replica be
    // in sync with its master (a replica that never synced can neither ack WAIT nor take over).
    await Promise.all(
      processes.map(async (node) => {
        try {
          await waitFor(
            `cluster_state:ok with all ${TOTAL_SLOTS} slots and replication up`,
            async () => {
              const cluster = infoFields(await nodeCommand(node.port, ['CLUSTER', 'INFO']));
              if (cluster.cluster_state !== 'ok') throw new Error(`cluster_state:${cluster.cluster_state}`);
              if (Number(cluster.cluster_slots_assigned) !== TOTAL_SLOTS) throw new Error(`cluster_slots_assigned:${cluster.cluster_slots_assigned}`);
              const replication = infoFields(await nodeCommand(node.port, ['INFO', 'replication']));
              if (replication.role === 'master' && Number(replication.connected_slaves) < replicasPerMaster) {
                throw new Error(`master with connected_slaves:${replication.connected_slaves}`);
              }
              if (replication.role === 'slave' && replication.master_link_status !== 'up') {
                throw new Error(`replica with master_link_status:${replication.master_link_status}`);
              }
              return true;
            },
            30_000,
          );
        } catch (e) {
          throw nodeError(node, (e as Error).message);
        }
      }),
    );
  } catch (e) {
    await stop();
    throw e;
  }

  const survivors = () => processes.filter((p) => p.isRunning());
  /** CLUSTER SLOTS from the first surviving node that answers. */
  const currentSlots = async (): Promise<SlotRange[]> => {
    const errors: string[] = [];
    for (const node of survivors()) {
      try {
        return (await nodeCommand(node.port, ['CLUSTER', 'SLOTS'])) as SlotRange[];
      } catch (e) {
        errors.push((e as Error).message);
      }
    }
    throw new Error(`no cluster node answered CLUSTER SLOTS: ${errors.join('; ') || 'none running'}`);
  };
  const slotsOfKilledMaster = new Map<number, OwnedSlots[]>();

  return {
    url: `redis+cluster://${processes.map((p) => `127.0.0.1:${p.port}`).join(',')}`,
    nodes: processes.map((p) => ({ port: p.port, pid: p.pid })),
    stop,

    async masterOf(key) {
      const node = survivors()[0];
      if (!node) throw new Error('masterOf: no cluster node is running');
      const slot = Number(await nodeCommand(node.port, ['CLUSTER', 'KEYSLOT', key]));
      const port = masterPortOfSlot(await currentSlots(), slot);
      if (port === undefined) throw new Error(`masterOf(${JSON.stringify(key)}): no master serves slot ${slot}`);
      return { port };
    },

    async killMaster(port) {
      const node = processes.find((p) => p.port === port);
      if (!node) throw new Error(`killMaster: no node of this cluster on port ${port}`);
      if (!node.isRunning()) throw new Error(`killMaster: the node on port ${port} is not running`);
      const slots = ((await nodeCommand(port, ['CLUSTER', 'SLOTS'])) as SlotRange[])
        .filter((range) => Number(range[2][1]) === port)
        .map(([start, end]) => ({ start, end }));
      if (slots.length === 0) throw new Error(`killMaster: the node on port ${port} is not a master serving slots`);
      slotsOfKilledMaster.set(port, slots);
      await node.kill();
    },

    async waitForFailover(deadPort, timeoutMs = 20_000) {
      const slots = slotsOfKilledMaster.get(deadPort);
      if (!slots) throw new Error(`waitForFailover: killMaster(${deadPort}) was not called`);
      let lagging: RedisServerProcess | undefined;
      try {
        return await waitFor(
          `the slots of the killed master on port ${deadPort} to be served by another node`,
          async () => {
            const running = survivors();
            let newMaster: number | undefined;
            for (const node of running) {
              lagging = node;
              const cluster = infoFields(await nodeCommand(node.port, ['CLUSTER', 'INFO']));
              if (cluster.cluster_state !== 'ok') throw new Error(`127.0.0.1:${node.port} says cluster_state:${cluster.cluster_state}`);
              const view = (await nodeCommand(node.port, ['CLUSTER', 'SLOTS'])) as SlotRange[];
              for (const { start, end } of slots) {
                for (const slot of [start, end]) {
                  const owner = masterPortOfSlot(view, slot);
                  if (owner === deadPort || !running.some((p) => p.port === owner)) {
                    throw new Error(`127.0.0.1:${node.port} says slot ${slot} is served by ${owner ?? 'nobody'}`);
                  }
                  newMaster ??= owner;
                }
              }
            }
            lagging = undefined;
            return newMaster === undefined ? undefined : { port: newMaster };
          },
          timeoutMs,
          200,
        );
      } catch (e) {
        throw lagging ? nodeError(lagging, (e as Error).message) : e;
      }
    },
  };
}
