import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When an outbox job may run: a transient retry goes out delayed by its backoff. Kept on the
 * row so that a job the sweeper sends after a crash keeps the rest of its delay instead of
 * going at once. Null: at once.
 */
export class OutboxNotBefore1765400000000 implements MigrationInterface {
  name = 'OutboxNotBefore1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "outbox" ADD COLUMN "not_before" timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "outbox" DROP COLUMN "not_before"`);
  }
}
