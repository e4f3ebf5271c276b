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
 * The queues lib's own REDIS_URL parser and cluster-wide SCAN (libs/queues/src/redis-url.ts,
 * redis-scan.ts), bundled from source on first use as scripts/run-demo.mjs bundles the CLI's
 * reader: no second copy here to drift. Only a multi-host URL and a prefix's clearing need them;
 * node_modules is installed by then (ensure-infra's first step).
 */
let redisParts;
function queuesRedisParts() {
  return (redisParts ??= bundleRedisParts());
}

async function bundleRedisParts() {
  const { build } = require('esbuild');
  const { bundleOptions, root } = await import('../tools/bundle-options.mjs');
  const parts = {};
  for (const name of ['redis-url', 'redis-scan']) {
    const outfile = `dist/scripts/${name}.js`;
    await build({ ...bundleOptions(`libs/queues/src/${name}.ts`, outfile), logLevel: 'error' });
    Object.assign(parts, require(`${root}/${outfile}`));
  }
  return parts;
}

/**
 * A client for any REDIS_URL form, with the probe's own options (no retrying, short timeouts):
 * one server from the URL as it is; a Redis Cluster's or Sentinel's hosts, credentials and
 * master read by the services' parser (parseRedisUrl).
 */
async function redisClient(u, options) {
  const Redis = require('ioredis');
  if (!/^rediss?\+/.test(u)) return new Redis(u, options);
  const { parseRedisUrl } = await queuesRedisParts();
  const target = parseRedisUrl(u);
  if (target.topology === 'cluster') {
    return new Redis.Cluster(target.nodes, { redisOptions: { ...target.options, ...options }, clusterRetryStrategy: () => null, lazyConnect: options.lazyConnect });
  }
  return new Redis({ ...target.options, ...options });
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
      const r = await redisClient(url, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0, retryStrategy: () => null });
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
      const r = await redisClient(url, { maxRetriesPerRequest: 1 });
      try {
        // scanKeys walks every master of a cluster; one DEL per key, as keys of several slots cannot share one.
        for (const k of await (await queuesRedisParts()).scanKeys(r, `${extra}:*`, 1000)) await r.del(k);
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
