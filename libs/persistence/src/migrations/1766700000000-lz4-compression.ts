import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The columns a step rewrites or inserts at every call, compressed with lz4 instead of
 * Postgres' default pglz (issue 27): a run's workflow_state snapshot (rewritten by every step,
 * several KB, stored out of line), a call's messages and reply, an event's payload, an op's
 * result. lz4 compresses several times faster for a little less ratio; measured, it took 0.25 ms
 * of Postgres CPU off each call of the panel bench (bench/README.md). Only new values are
 * written with it: rows already stored stay as they are, and both read alike.
 *
 * A server built without lz4 (it is optional; PostgreSQL before 14 has no per-column
 * compression) keeps pglz: the migration then changes nothing, and says so in a notice.
 */
const COLUMNS: readonly [table: string, column: string][] = [
  ['runs', 'workflow_state'],
  ['runs', 'config'],
  ['agent_calls', 'messages'],
  ['agent_calls', 'response_text'],
  ['agent_calls', 'parsed'],
  ['run_events', 'payload'],
  ['workspace_ops', 'result'],
];

/** One DO block: lz4 where the server has it, nothing where it does not. */
function setCompression(method: 'lz4' | 'default'): string {
  const alters = COLUMNS.map(([t, c]) => `ALTER TABLE "${t}" ALTER COLUMN "${c}" SET COMPRESSION ${method};`).join('\n      ');
  return `DO $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        RAISE NOTICE 'this PostgreSQL has no lz4 compression: the large columns keep pglz';
        RETURN;
      END IF;
      ${alters}
    END $$`;
}

export class Lz4Compression1766700000000 implements MigrationInterface {
  name = 'Lz4Compression1766700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(setCompression('lz4'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(setCompression('default'));
  }
}
