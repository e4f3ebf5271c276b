import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runMigrations } from './data-source';

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** Connection URL of the new database. */
  url: string;
  name: string;
  /** Drops the database, closing any connection still open to it. Safe to call twice. */
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /** Run every migration before returning (default false). */
  migrate?: boolean;
  /** The server to make it on, as a URL of its admin database. Default: TEST_DATABASE_URL, else local trust auth. */
  adminUrl?: string;
}

async function onAdminConnection(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, uniquely named database for one integration test file, so test files can run in
 * parallel without seeing each other's rows. Admin URL: TEST_DATABASE_URL or local trust auth.
 */
export async function createTestDatabase(opts: CreateTestDatabaseOptions = {}): Promise<TestDatabase> {
  const adminUrl = opts.adminUrl || process.env.TEST_DATABASE_URL || DEFAULT_ADMIN_URL;
  const name = `rt_test_${randomBytes(8).toString('hex')}`;
  await onAdminConnection(adminUrl, `CREATE DATABASE "${name}"`);

  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  const db: TestDatabase = {
    url: url.toString(),
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      // FORCE: a test that failed midway may have left a pool open; the drop must still succeed.
      await onAdminConnection(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };

  if (opts.migrate) {
    try {
      await runMigrations(db.url);
    } catch (err) {
      await db.drop();
      throw err;
    }
  }
  return db;
}
