import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from '@roundtable/testing';

const run = promisify(execFile);

/**
 * Integration tests only: a Postgres primary and a streaming read replica of it, made from
 * nothing on two free loopback ports in a temp directory (initdb, then `pg_basebackup -R`), with
 * the server binaries of /usr/lib/postgresql/<newest>/bin (PG_BIN overrides) — the servers a
 * managed Postgres with a read replica gives, small. Trust auth, loopback only, no fsync.
 * `stop()` stops both and deletes the directory, and is safe to call twice or after a failed start.
 */
export interface PgReplicaPair {
  /** Admin URLs (database postgres, user postgres). */
  primaryUrl: string;
  replicaUrl: string;
  /** Resolves once the replica has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Holds the replica where it is (pg_wal_replay_pause): it keeps answering, from the past. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica alone (fast shutdown), as a replica that went away would be. */
  stopReplica(): Promise<void>;
  stop(): Promise<void>;
}

function serverBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_basebackup'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no Postgres server binaries in ${root}/<version>/bin (apt-get install postgresql), and PG_BIN is not set`);
  return join(root, newest, 'bin');
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function startPgReplicaPair(): Promise<PgReplicaPair> {
  const bin = serverBin();
  // The server refuses to run as root: then every binary runs as the postgres user, in a directory it owns.
  const asRoot = process.getuid?.() === 0;
  const pg = (tool: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args));
  const dir = mkdtempSync(join(tmpdir(), 'rt-replica-'));
  if (asRoot) {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]).then((ids) => ids.map((o) => Number(o.stdout.trim())));
    chownSync(dir, uid, gid);
  }
  const [primaryDir, replicaDir] = [join(dir, 'primary'), join(dir, 'replica')];
  const started: string[] = [];
  const serverOptions = (port: number) =>
    ['-c', `port=${port}`, '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'fsync=off', '-c', 'wal_level=replica', '-c', 'max_wal_senders=4', '-c', 'max_connections=50'].join(' ');
  const stop = async () => {
    for (const d of started.splice(0).reverse()) await pg('pg_ctl', ['-D', d, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  try {
    // initdb's pg_hba trusts loopback for replication connections too, which pg_basebackup and the standby use.
    await pg('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    await pg('pg_ctl', ['-D', primaryDir, '-l', join(dir, 'primary.log'), '-o', serverOptions(primaryPort), '-w', 'start']);
    started.push(primaryDir);
    // -R: standby.signal and primary_conninfo, so the copy starts as a streaming replica of the primary.
    await pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    await pg('pg_ctl', ['-D', replicaDir, '-l', join(dir, 'replica.log'), '-o', `${serverOptions(replicaPort)} -c hot_standby=on`, '-w', 'start']);
    started.push(replicaDir);
  } catch (e) {
    await stop();
    throw e;
  }
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  return {
    primaryUrl,
    replicaUrl,
    async caughtUp(timeoutMs = 10_000) {
      const [{ lsn }] = await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [{ done }] = await query<{ done: boolean }>(replicaUrl, `SELECT coalesce(pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn, false) AS done`);
        if (done) return;
        if (Date.now() > deadline) throw new Error(`the replica has not replayed the primary's WAL up to ${lsn} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async pauseReplay() {
      await query(replicaUrl, 'SELECT pg_wal_replay_pause()');
      // The call only asks; replay stops at its next record. Held means the state says so.
      const deadline = Date.now() + 5000;
      while ((await query<{ state: string }>(replicaUrl, 'SELECT pg_get_wal_replay_pause_state() AS state'))[0].state !== 'paused') {
        if (Date.now() > deadline) throw new Error('the replica did not pause its replay within 5 s');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async resumeReplay() {
      await query(replicaUrl, 'SELECT pg_wal_replay_resume()');
    },
    async stopReplica() {
      const i = started.indexOf(replicaDir);
      if (i < 0) return;
      started.splice(i, 1);
      await pg('pg_ctl', ['-D', replicaDir, '-m', 'fast', '-w', 'stop']);
    },
    stop,
  };
}
