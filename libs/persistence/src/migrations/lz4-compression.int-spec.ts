import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '../data-source';
import { createTestDatabase, type TestDatabase } from '../test-database';
import { Lz4Compression1766700000000 } from './1766700000000-lz4-compression';

/** attcompression: 'l' lz4, 'p' pglz, '' the server's default_toast_compression. */
async function compressionOf(ds: DataSource, table: string, column: string): Promise<string> {
  const [row] = await ds.query(
    `SELECT attcompression::text AS c FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2`,
    [table, column],
  );
  return row.c;
}

describe('Lz4Compression1766700000000', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let hasLz4: boolean;

  beforeAll(async () => {
    db = await createTestDatabase();
    await runMigrations(db.url);
    ds = createDataSource(db.url);
    await ds.initialize();
    const [row] = await ds.query(`SELECT 'lz4' = ANY (enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`);
    hasLz4 = row?.lz4 === true;
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  it('runs on this server, which has lz4 (the Debian and postgres images are built with it)', () => {
    expect(hasLz4).toBe(true);
  });

  it('compresses the snapshot, the messages and the reply with lz4, and a stored value with it', async () => {
    expect(await compressionOf(ds, 'runs', 'workflow_state')).toBe('l');
    expect(await compressionOf(ds, 'agent_calls', 'messages')).toBe('l');
    expect(await compressionOf(ds, 'agent_calls', 'response_text')).toBe('l');
    expect(await compressionOf(ds, 'run_events', 'payload')).toBe('l');
    // A column not listed keeps the server's default.
    expect(await compressionOf(ds, 'outbox', 'payload')).toBe('');

    // A value large enough to be compressed is written with lz4 (pg_column_compression reads the stored datum).
    const big = JSON.stringify({ text: 'a judge said this. '.repeat(400) });
    await ds.query(`INSERT INTO projects (id, name, objective, requirements, config) VALUES ('p1', 'p', 'o', '[]', '{}')`);
    await ds.query(
      `INSERT INTO runs (id, project_id, workflow, status, stage, config, workflow_state) VALUES ('r1', 'p1', 'panel', 'queued', 'INIT', '{}', $1::jsonb)`,
      [big],
    );
    const [row] = await ds.query(`SELECT pg_column_compression(workflow_state) AS c, workflow_state->>'text' = $1 AS same FROM runs WHERE id = 'r1'`, [
      JSON.parse(big).text,
    ]);
    expect(row).toEqual({ c: 'lz4', same: true });
  });

  it('down() sets the columns back to the server default, and up() again to lz4', async () => {
    const runner = ds.createQueryRunner();
    try {
      await new Lz4Compression1766700000000().down(runner);
      expect(await compressionOf(ds, 'runs', 'workflow_state')).toBe('');
      expect(await compressionOf(ds, 'agent_calls', 'messages')).toBe('');
      await new Lz4Compression1766700000000().up(runner);
      expect(await compressionOf(ds, 'runs', 'workflow_state')).toBe('l');
    } finally {
      await runner.release();
    }
  });
});
