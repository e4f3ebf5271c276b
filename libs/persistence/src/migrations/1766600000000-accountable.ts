import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accountable (issue 26): the team that owns each run, idea, experiment and eval (rows from
 * before this migration belong to the team `default`, which is where an old-form token puts
 * its holder); the run's hash-chained record — each event's hash (a call's record hash rides in
 * the event that records it), the run's head hash and its signature at a terminal event.
 */
export class Accountable1766600000000 implements MigrationInterface {
  name = 'Accountable1766600000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['runs', 'ideas', 'experiments', 'evals']) {
      await q.query(`ALTER TABLE "${table}" ADD "team" text NOT NULL DEFAULT 'default'`);
      await q.query(`CREATE INDEX "ix_${table}_team_created_at" ON "${table}" ("team", "created_at")`);
    }
    await q.query(`ALTER TABLE "runs" ADD "head_hash" text`);
    await q.query(`ALTER TABLE "runs" ADD "signature" jsonb`);
    await q.query(`ALTER TABLE "run_events" ADD "hash" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "run_events" DROP COLUMN "hash"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "signature"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "head_hash"`);
    for (const table of ['evals', 'experiments', 'ideas', 'runs']) {
      await q.query(`DROP INDEX "ix_${table}_team_created_at"`);
      await q.query(`ALTER TABLE "${table}" DROP COLUMN "team"`);
    }
  }
}
