import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { DatabaseNotMigratedError } from './database-not-migrated.error';
import { ALL_ENTITIES } from './entities/all-entities';
import { ALL_MIGRATIONS } from './migrations/all-migrations';
import { connectErrorText } from './connect-error-text';
import { redactDatabaseUrl } from './redact-database-url';

export const MIGRATIONS_TABLE = 'migrations';

export interface CreateDataSourceOptions {
  logging?: boolean;
  /** Connections in the pool (node-postgres default: 10). */
  poolSize?: number;
  /** Shown in pg_stat_activity, so a stuck query can be traced to its service. */
  applicationName?: string;
  /**
   * Every transaction read-only (default_transaction_read_only on each connection): a read replica's
   * pool, so a write sent to it by mistake fails as one even where the URL reaches a writable server.
   */
  readOnly?: boolean;
  /** The environment variable the URL came from, as a connection error names it (default DATABASE_URL). */
  urlVar?: string;
}

/**
 * A DataSource over every entity and migration, not yet initialized. The schema changes only
 * through checked-in migrations run by `npm run db:migrate`, never at service start.
 */
export function createDataSource(url: string, opts: CreateDataSourceOptions = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: [...ALL_ENTITIES],
    migrations: [...ALL_MIGRATIONS],
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    logging: opts.logging ?? false,
    poolSize: opts.poolSize,
    applicationName: opts.applicationName,
    ...(opts.readOnly ? { extra: { options: '-c default_transaction_read_only=on' } } : {}),
  });
}

/** Applies pending migrations, each in its own transaction; returns the names applied. */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = createDataSource(url, { poolSize: 1, applicationName: 'roundtable-migrate' });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

/**
 * Names of the known migrations not yet recorded in the database. Read-only, unlike
 * TypeORM's own check, which creates the migrations table as a side effect.
 */
export async function pendingMigrations(ds: DataSource): Promise<string[]> {
  const table = ds.options.migrationsTableName ?? MIGRATIONS_TABLE;
  const [{ present }] = (await ds.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [table])) as Array<{
    present: boolean;
  }>;
  const applied = new Set<string>();
  if (present) {
    const rows = (await ds.query(`SELECT "name" FROM "${table}"`)) as Array<{ name: string }>;
    for (const row of rows) applied.add(row.name);
  }
  return ds.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !applied.has(name));
}

/** Throws DatabaseNotMigratedError when the initialized DataSource's database lags the code. */
export async function assertMigrated(ds: DataSource): Promise<void> {
  const pending = await pendingMigrations(ds);
  if (pending.length > 0) {
    const url = (ds.options as PostgresConnectionOptions).url ?? '<database url not set>';
    throw new DatabaseNotMigratedError(redactDatabaseUrl(url), pending);
  }
}

/**
 * What a service calls at boot: connect, and refuse to go on against an unmigrated database. A
 * database that cannot be reached is said as Postgres, DATABASE_URL and the address (password
 * redacted), not as the driver's bare ECONNREFUSED.
 */
export async function openMigratedDataSource(url: string, opts: CreateDataSourceOptions = {}): Promise<DataSource> {
  const ds = createDataSource(url, opts);
  try {
    await ds.initialize();
  } catch (e) {
    const urlVar = opts.urlVar ?? 'DATABASE_URL';
    throw new Error(`cannot reach Postgres at ${redactDatabaseUrl(url)} (${urlVar}): ${connectErrorText(e)}; start Postgres or set ${urlVar} to where it listens`, { cause: e });
  }
  try {
    await assertMigrated(ds);
  } catch (err) {
    await ds.destroy();
    throw err;
  }
  return ds;
}
