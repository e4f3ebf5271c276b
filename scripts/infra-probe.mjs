// Small helpers for scripts/ensure-infra.sh: URL arithmetic, and connection checks for when
// psql / redis-cli are not installed. Exit 0 = yes / done, 1 = no (reason on stderr).
//
//   node scripts/infra-probe.mjs admin-url <postgres-url>     same server, database "postgres"
//   node scripts/infra-probe.mjs db-name <postgres-url>       the database name in the URL
//   node scripts/infra-probe.mjs host <url>                   the host name in the URL
//   node scripts/infra-probe.mjs port <url> <default>         the port in the URL
//   node scripts/infra-probe.mjs pg <postgres-url>            connects and runs SELECT 1
//   node scripts/infra-probe.mjs pg-ensure-db <postgres-url>  creates the URL's database if missing
//   node scripts/infra-probe.mjs redis <redis-url>            PING answers PONG
//   node scripts/infra-probe.mjs redis-clear-prefix <redis-url> <prefix>
//                                                              deletes the keys <prefix>:* (a demo's queues)
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const [cmd, url, extra] = process.argv.slice(2);

function adminUrl(u) {
  const parsed = new URL(u);
  parsed.pathname = '/postgres';
  return parsed.toString();
}

function dbName(u) {
  return decodeURIComponent(new URL(u).pathname.replace(/^\//, '')) || 'postgres';
}

async function withPg(u, fn) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: u, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A client for any REDIS_URL form (libs/queues/src/redis-url.ts says them all): one server, a Redis
 * Cluster (redis+cluster://[user:pw@]h:p,h:p) or Sentinel (redis+sentinel://[user:pw@]h:p,…/<master>[/db]).
 * The multi-host forms are read just far enough to connect; the services' own parser names any mistake.
 */
function redisClient(u, options) {
  const Redis = require('ioredis');
  const m = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/]*)@)?([^/]*)\/?([^/]*)\/?(\d*)$/.exec(u);
  if (!m) return new Redis(u, options);
  const [, scheme, topology, userinfo = '', hosts, master, db] = m;
  const colon = userinfo.indexOf(':');
  const auth = {
    ...(userinfo && colon !== 0 ? { username: decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon)) } : {}),
    ...(colon >= 0 ? { password: decodeURIComponent(userinfo.slice(colon + 1)) } : {}),
    ...(scheme === 'rediss' ? { tls: {} } : {}),
  };
  const nodes = hosts.split(',').map((h) => {
    const hm = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(h.trim());
    return { host: (hm?.[1] ?? h).replace(/^\[|\]$/g, ''), port: Number(hm?.[2] ?? (topology === 'sentinel' ? 26379 : 6379)) };
  });
  if (topology === 'cluster') return new Redis.Cluster(nodes, { redisOptions: { ...options, ...auth }, clusterRetryStrategy: () => null, lazyConnect: options.lazyConnect });
  return new Redis({ ...options, ...auth, sentinels: nodes, name: master, ...(db ? { db: Number(db) } : {}) });
}

async function main() {
  switch (cmd) {
    case 'admin-url':
      console.log(adminUrl(url));
      return 0;
    case 'db-name':
      console.log(dbName(url));
      return 0;
    case 'host':
      console.log(new URL(url).hostname.replace(/^\[|\]$/g, ''));
      return 0;
    case 'port':
      console.log(new URL(url).port || extra);
      return 0;
    case 'pg':
      await withPg(url, (c) => c.query('SELECT 1'));
      return 0;
    case 'pg-ensure-db': {
      const name = dbName(url);
      await withPg(adminUrl(url), async (c) => {
        const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (found.rowCount === 0) await c.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      });
      return 0;
    }
    case 'redis': {
      const r = redisClient(url, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on('error', () => {}); // the rejected connect() below reports it once
      try {
        await r.connect();
        return (await r.ping()) === 'PONG' ? 0 : 1;
      } finally {
        r.disconnect();
      }
    }
    case 'redis-clear-prefix': {
      if (!extra || !/^[A-Za-z0-9_-]+$/.test(extra)) throw new Error('redis-clear-prefix needs a plain prefix');
      const r = redisClient(url, { maxRetriesPerRequest: 1 });
      try {
        // A cluster's SCAN walks one node: each master in turn, and one DEL per key (keys of several slots).
        for (const node of r.isCluster ? (await new Promise((ok) => r.once('ready', ok)), r.nodes('master')) : [r]) {
          let cursor = '0';
          do {
            const [next, keys] = await node.scan(cursor, 'MATCH', `${extra}:*`, 'COUNT', 1000);
            for (const k of keys) await node.del(k);
            cursor = next;
          } while (cursor !== '0');
        }
      } finally {
        r.disconnect();
      }
      return 0;
    }
    default:
      console.error(`infra-probe: unknown command "${cmd}"`);
      return 2;
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
