import IORedis, { Cluster, Redis, type RedisOptions } from 'ioredis';
import { parseRedisUrl, type RedisTarget } from './redis-url';

/** A connection to the deployment's Redis: one server (or Sentinel's current master), or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * How long a Cluster client keeps retrying a command the cluster refuses while a master fails
 * over (CLUSTERDOWN, TRYAGAIN): a replica is promoted after cluster-node-timeout plus an election,
 * a few seconds, and a command that gave up sooner would fail a job for what is only a wait.
 */
const CLUSTER_DOWN_RETRY_MS = 200;
const CLUSTER_MAX_REDIRECTIONS = 100;

function clusterOf(target: Extract<RedisTarget, { topology: 'cluster' }>): Cluster {
  return new IORedis.Cluster(target.nodes, {
    redisOptions: target.options,
    enableReadyCheck: true,
    retryDelayOnClusterDown: CLUSTER_DOWN_RETRY_MS,
    retryDelayOnTryAgain: CLUSTER_DOWN_RETRY_MS,
    maxRedirections: CLUSTER_MAX_REDIRECTIONS,
  });
}

/**
 * A new connection to REDIS_URL (any of its forms, redis-url.ts). BullMQ workers block on Redis;
 * with ioredis' default retry limit a blocked command would throw instead of waiting, so
 * `maxRetriesPerRequest: null` is set for every form.
 */
export function createRedisConnection(url: string): RedisClient {
  const target = parseRedisUrl(url);
  if (target.topology === 'cluster') return clusterOf(target);
  return new IORedis({ ...target.options, lazyConnect: false });
}

/**
 * REDIS_URL as ioredis options, for a single Redis or Sentinel: given options rather than a
 * client, BullMQ opens its own connections for each queue and worker and closes them with it (a
 * client passed in is shared, and nothing would close it). A cluster cannot be given as options
 * (BullMQ makes a plain client from them): bullConnection() gives it a Cluster client instead.
 */
export function redisConnectionOptions(url: string): RedisOptions {
  const target = parseRedisUrl(url);
  if (target.topology === 'cluster') throw new Error('REDIS_URL names a Redis Cluster: its connection is a client, not options (bullConnection)');
  return target.options;
}

/**
 * The connection @nestjs/bullmq's root hands every queue and worker of a service: options (each
 * opens and closes its own), or for a Redis Cluster one Cluster client they share (BullMQ
 * duplicates it for a worker's blocking reads). The shared client is the caller's to close, after
 * the workers and queues: `owned` collects it.
 */
export function bullConnection(url: string, owned: RedisClient[]): RedisOptions | Cluster {
  const target = parseRedisUrl(url);
  if (target.topology !== 'cluster') return target.options;
  const cluster = clusterOf(target);
  owned.push(cluster);
  return cluster;
}

/** True when the client is a Redis Cluster's (its keys live on several masters). */
export function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}
