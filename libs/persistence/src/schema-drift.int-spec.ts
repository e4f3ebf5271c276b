import type { DataSource } from 'typeorm';
import { assertMigrated, createDataSource, MIGRATIONS_TABLE, runMigrations } from './data-source';
import { DatabaseNotMigratedError } from './database-not-migrated.error';
import { ALL_MIGRATIONS } from './migrations/all-migrations';
import { createTestDatabase, type TestDatabase } from './test-database';

/** Quoted literals in a constraint or predicate, however Postgres has rewritten the SQL around them. */
function literals(sql: string): string[] {
  return [...sql.matchAll(/'([^']*)'/g)].map((m) => m[1]).sort();
}

/** `"sent_at" IS NULL` and Postgres's `(sent_at IS NULL)` are the same predicate. */
function normalizePredicate(sql: string | null | undefined): string | null {
  return sql ? sql.replace(/["()\s]/g, '').toLowerCase() : null;
}

describe('entities and migrations agree', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase();
    await runMigrations(db.url);
    ds = createDataSource(db.url);
    await ds.initialize();
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  it('leaves TypeORM nothing to synchronize after the migrations ran', async () => {
    const sqlInMemory = await ds.driver.createSchemaBuilder().log();
    // Listed in full on failure: each query is what the migration is missing.
    expect(sqlInMemory.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('creates a table for every entity and no other table besides the migrations log', async () => {
    const rows: Array<{ tablename: string }> = await ds.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    );
    const expected = [...ds.entityMetadatas.map((m) => m.tableName), MIGRATIONS_TABLE].sort();
    expect(rows.map((r) => r.tablename)).toEqual(expected);
  });

  // The schema builder compares the following by name only, so a changed definition would pass it.
  it('names every primary key as the entities do', async () => {
    const rows: Array<{ table: string; name: string }> = await ds.query(
      `SELECT rel.relname AS "table", con.conname AS name
         FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid
        WHERE con.contype = 'p' AND rel.relnamespace = 'public'::regnamespace`,
    );
    const actual = Object.fromEntries(rows.map((r) => [r.table, r.name]));
    const expected = Object.fromEntries(
      ds.entityMetadatas
        .filter((m) => m.tableName !== MIGRATIONS_TABLE)
        .map((m) => [m.tableName, m.primaryColumns[0].primaryKeyConstraintName]),
    );
    expect(actual).toEqual({ ...expected, [MIGRATIONS_TABLE]: expect.any(String) });
  });

  it('allows exactly the values in each CHECK constraint that the entities allow', async () => {
    const rows: Array<{ name: string; def: string }> = await ds.query(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE contype = 'c' AND connamespace = 'public'::regnamespace`,
    );
    const actual = Object.fromEntries(rows.map((r) => [r.name, literals(r.def)]));
    const expected = Object.fromEntries(
      ds.entityMetadatas.flatMap((m) => m.checks.map((c) => [c.name, literals(c.expression ?? '')])),
    );
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    expect(actual).toEqual(expected);
  });

  it('gives every index the partial-index predicate the entities declare', async () => {
    const rows: Array<{ name: string; predicate: string | null }> = await ds.query(
      `SELECT c.relname AS name, pg_get_expr(i.indpred, i.indrelid) AS predicate
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relnamespace = 'public'::regnamespace AND NOT i.indisprimary`,
    );
    const actual = Object.fromEntries(rows.map((r) => [r.name, normalizePredicate(r.predicate)]));
    const expected = Object.fromEntries(
      ds.entityMetadatas.flatMap((m) => m.indices.map((i) => [i.name, normalizePredicate(i.where)])),
    );
    expect(expected['ix_outbox_unsent_created_at']).toBe('sent_atisnull');
    expect(actual).toEqual(expected);
  });
});

describe('assertMigrated', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = createDataSource(db.url);
    await ds.initialize();
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  it('throws on an unmigrated database, naming it and the fix, without touching it', async () => {
    const failure = assertMigrated(ds);
    await expect(failure).rejects.toBeInstanceOf(DatabaseNotMigratedError);
    await expect(failure).rejects.toThrow(
      `database at ${db.url} is not migrated: run \`npm run db:migrate\` (pending: ${ALL_MIGRATIONS.map((M) => new M().name).join(', ')})`,
    );
    const [{ present }] = await ds.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [MIGRATIONS_TABLE]);
    expect(present).toBe(false);
  });

  it('passes once the migrations ran, and a second run applies nothing', async () => {
    expect(await runMigrations(db.url)).toEqual(ALL_MIGRATIONS.map((M) => new M().name));
    await expect(assertMigrated(ds)).resolves.toBeUndefined();
    expect(await runMigrations(db.url)).toEqual([]);
  });
});

describe('the migrations down', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('undone newest first, drop every table they created, and up runs again cleanly after it', async () => {
    const ds = createDataSource(db.url);
    await ds.initialize();
    try {
      for (let i = 0; i < ALL_MIGRATIONS.length; i++) await ds.undoLastMigration();
      const rows: Array<{ tablename: string }> = await ds.query(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`,
      );
      expect(rows.map((r) => r.tablename)).toEqual([MIGRATIONS_TABLE]);
      await expect(assertMigrated(ds)).rejects.toBeInstanceOf(DatabaseNotMigratedError);
    } finally {
      await ds.destroy();
    }
    expect(await runMigrations(db.url)).toEqual(ALL_MIGRATIONS.map((M) => new M().name));
  });
});
