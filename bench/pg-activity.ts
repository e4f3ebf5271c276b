/**
 * What Postgres did for a phase, from its cumulative statistics (pg_stat_database and
 * pg_stat_user_tables of the scratch database): transactions, rows written per table, buffer
 * pages touched. Counted by the server, so it says what a call costs Postgres whoever sent it;
 * the bench's own polling (one count query every 100 ms) is in it too, and small.
 */
import type { Pool } from 'pg';
import { fmt } from './bench-context';

const DB_COUNTERS = ['xact_commit', 'xact_rollback', 'tup_returned', 'tup_fetched', 'tup_inserted', 'tup_updated', 'tup_deleted', 'blks_hit', 'blks_read'] as const;
type DbCounter = (typeof DB_COUNTERS)[number];

export interface PgActivity {
  db: Record<DbCounter, number>;
  /** Rows inserted + updated + deleted, per table. */
  written: Map<string, { ins: number; upd: number; del: number }>;
}

/**
 * Backends report their counters at the end of a transaction at most once a second; one that
 * goes idle with counters still unreported reports them after 10 s idle (Postgres 15's
 * PGSTAT_IDLE_INTERVAL). Waiting only the second left about a quarter of the DBOS peer's step
 * inserts out of its phase: wait for the idle report.
 */
const STATS_FLUSH_MS = 11_000;

export async function pgActivity(pg: Pool, database: string): Promise<PgActivity> {
  await new Promise((r) => setTimeout(r, STATS_FLUSH_MS));
  const client = await pg.connect();
  try {
    // A fresh snapshot, not the one this connection may have cached in an earlier transaction.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows: dbRows } = await client.query<Record<DbCounter, string>>(`SELECT ${DB_COUNTERS.join(', ')} FROM pg_stat_database WHERE datname = $1`, [database]);
    const { rows: tables } = await client.query<{ relname: string; ins: string; upd: string; del: string }>(
      `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del FROM pg_stat_user_tables`,
    );
    return {
      db: Object.fromEntries(DB_COUNTERS.map((k) => [k, Number(dbRows[0]?.[k] ?? 0)])) as Record<DbCounter, number>,
      written: new Map(tables.map((t) => [t.relname, { ins: Number(t.ins), upd: Number(t.upd), del: Number(t.del) }])),
    };
  } finally {
    client.release();
  }
}

/** Lines describing what Postgres did between two snapshots, per agent call. */
export function describePgActivity(before: PgActivity, after: PgActivity, calls: number): string[] {
  const d = (k: DbCounter) => (after.db[k] - before.db[k]) / calls;
  const tables = [...after.written]
    .map(([name, a]) => {
      const b = before.written.get(name) ?? { ins: 0, upd: 0, del: 0 };
      return { name, ins: a.ins - b.ins, upd: a.upd - b.upd, del: a.del - b.del };
    })
    .filter((t) => t.ins + t.upd + t.del > 0)
    .sort((x, y) => y.ins + y.upd + y.del - (x.ins + x.upd + x.del));
  const cell = (n: number, what: string) => (n ? `${fmt(n / calls)} ${what}` : '');
  return [
    `transactions ${fmt(d('xact_commit') + d('xact_rollback'))}, rows inserted ${fmt(d('tup_inserted'))}, updated ${fmt(d('tup_updated'))}, ` +
      `deleted ${fmt(d('tup_deleted'))}, rows read (returned / fetched) ${fmt(d('tup_returned'), 0)} / ${fmt(d('tup_fetched'), 0)}, ` +
      `buffer pages hit ${fmt(d('blks_hit'), 0)} (read from disk ${fmt(d('blks_read'))})`,
    `rows written per table: ${tables.map((t) => `${t.name} ${[cell(t.ins, 'ins'), cell(t.upd, 'upd'), cell(t.del, 'del')].filter(Boolean).join(' ')}`).join(', ')}`,
  ];
}
