import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Forks (issue 22): a run started again from a stage of another, reusing the recorded calls before
 * that stage. `runs.forked_from` says where it came from and which calls it may copy (ForkOrigin);
 * the index answers "which runs were forked from this one" for the original's page.
 * `agent_calls.copied_from` marks a row copied from the original run's call of that id: its reply,
 * tokens and cost are the original's, and it is not billed to the fork (no usage, no budget).
 */
export class RunForks1766000000000 implements MigrationInterface {
  name = 'RunForks1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" ADD "forked_from" jsonb`);
    await q.query(`CREATE INDEX "ix_runs_forked_from_run_id" ON "runs" (("forked_from" ->> 'run_id'))`);
    await q.query(`ALTER TABLE "agent_calls" ADD "copied_from" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "agent_calls" DROP COLUMN "copied_from"`);
    await q.query(`DROP INDEX "ix_runs_forked_from_run_id"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "forked_from"`);
  }
}
