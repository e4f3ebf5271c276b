import type { RedisOptions } from 'ioredis';

/** The forms REDIS_URL takes, said in every error about it. */
export const REDIS_URL_FORMS =
  'redis://[user:password@]host[:port][/db] (rediss:// for TLS), redis+cluster://[user:password@]host:port,host:port,… for a Redis Cluster, ' +
  'or redis+sentinel://[user:password@]host:port,host:port,…/<master name>[/db] for Sentinel';

export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where a deployment's Redis is: one server, a Redis Cluster (any of its nodes: the client learns
 * the rest), or the Sentinels that name the current master of a replicated pair. Managed Redis
 * offers the last two; a service finds out which from REDIS_URL alone, so one variable moves a
 * deployment from a single Redis to a cluster.
 */
export type RedisTarget =
  | { topology: 'single'; options: RedisOptions }
  | { topology: 'sentinel'; options: RedisOptions }
  | { topology: 'cluster'; nodes: RedisNode[]; options: RedisOptions };

const SCHEME = /^(rediss?)(\+cluster|\+sentinel)?:\/\/(.*)$/s;

/** Parses REDIS_URL; the error names the variable, what was wrong, and the forms it takes. */
export function parseRedisUrl(url: string): RedisTarget {
  const m = SCHEME.exec(url);
  if (!m) {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1];
    if (scheme) throw new Error(`REDIS_URL must start with redis:// or rediss:// (or redis+cluster://, redis+sentinel://), got ${scheme}://: give ${REDIS_URL_FORMS}`);
    throw new Error(`REDIS_URL is not a URL (${url}): give ${REDIS_URL_FORMS}`);
  }
  const [, scheme, topology, rest] = m as unknown as [string, string, string | undefined, string];
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? [] : rest.slice(slash + 1).split('/').filter(Boolean);
  const at = authority.lastIndexOf('@');
  const credentials = credentialsOf(at < 0 ? '' : authority.slice(0, at));
  const hostList = at < 0 ? authority : authority.slice(at + 1);
  const common: RedisOptions = {
    ...credentials,
    ...(scheme === 'rediss' ? { tls: {} } : {}),
    // BullMQ workers block on Redis: with a retry limit a blocked command would throw instead of waiting.
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
  };

  if (topology === '+cluster') {
    if (path.length) throw new Error(`REDIS_URL: a Redis Cluster has no database number or path (got /${path.join('/')}): give ${REDIS_URL_FORMS}`);
    return { topology: 'cluster', nodes: nodesOf(hostList, 6379), options: common };
  }
  if (topology === '+sentinel') {
    const [name, db, ...extra] = path;
    if (!name || extra.length) throw new Error(`REDIS_URL: a Sentinel URL names the master after the hosts, e.g. redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster: give ${REDIS_URL_FORMS}`);
    const sentinels = nodesOf(hostList, 26379);
    return { topology: 'sentinel', options: { ...common, sentinels, name: decodeURIComponent(name), ...dbOf(db) } };
  }
  const nodes = nodesOf(hostList || '127.0.0.1', 6379);
  if (nodes.length !== 1) throw new Error(`REDIS_URL names ${nodes.length} hosts: for a Redis Cluster write redis+cluster://…, for Sentinel redis+sentinel://…/<master name>`);
  if (path.length > 1) throw new Error(`REDIS_URL: only a database number may follow the host (got /${path.join('/')}): give ${REDIS_URL_FORMS}`);
  return { topology: 'single', options: { host: nodes[0]!.host, port: nodes[0]!.port, ...common, ...dbOf(path[0]) } };
}

function credentialsOf(userinfo: string): Pick<RedisOptions, 'username' | 'password'> {
  if (!userinfo) return {};
  const colon = userinfo.indexOf(':');
  const username = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = colon < 0 ? '' : decodeURIComponent(userinfo.slice(colon + 1));
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

function dbOf(db: string | undefined): Pick<RedisOptions, 'db'> {
  if (db === undefined || db === '') return {};
  if (!/^\d+$/.test(db)) throw new Error(`REDIS_URL: the database must be a number (got /${db}): give ${REDIS_URL_FORMS}`);
  return { db: Number(db) };
}

/** `host[:port],host[:port]`, IPv6 hosts in brackets (`[::1]:6379`). */
function nodesOf(list: string, defaultPort: number): RedisNode[] {
  const nodes = list.split(',').map((entry) => entry.trim());
  if (nodes.some((n) => !n)) throw new Error(`REDIS_URL: an empty host in "${list}": give ${REDIS_URL_FORMS}`);
  return nodes.map((entry) => {
    const m = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d+))?$/.exec(entry);
    if (!m) throw new Error(`REDIS_URL: "${entry}" is not host[:port]: give ${REDIS_URL_FORMS}`);
    const port = m[2] === undefined ? defaultPort : Number(m[2]);
    if (port < 1 || port > 65535) throw new Error(`REDIS_URL: port ${m[2]} of "${entry}" is not between 1 and 65535`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
}
