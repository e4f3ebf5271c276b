import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Handoffs (issue 23): a build run made from an idea panel's synthesis (POST /v1/ideas/:id/handoff)
 * records where it came from on its row: `runs.handed_off_from` is { idea_id, version,
 * panel_run_id, recommendation } (HandedOffFrom), null for any other run. The index answers
 * "which builds were handed on from this idea" for GET /v1/ideas/:id.
 */
export class RunHandoffs1766200000000 implements MigrationInterface {
  name = 'RunHandoffs1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" ADD "handed_off_from" jsonb`);
    await q.query(`CREATE INDEX "ix_runs_handed_off_from_idea_id" ON "runs" (("handed_off_from" ->> 'idea_id'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_runs_handed_off_from_idea_id"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "handed_off_from"`);
  }
}
