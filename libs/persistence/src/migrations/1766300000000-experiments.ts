import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Experiments (issue 24). The `experiments` table from day one gets what running one needs:
 * `status` (draft → locked → decided, or rejected at its gate), the repository and the `commit` the
 * preregistration is pinned to, where it came from (`source`: { build_run_id, question_id } or
 * { idea_id }), its latest run, and what the interpretation said (`interpretation`: the readings,
 * an override request, the critic's review, an open question). A drafted experiment has no
 * preregistration, hash or lock time until a person approves the draft, so those may be null.
 * `workspace_ops` gets the `experiment` kind: the method's command run at the pinned commit.
 */
export class Experiments1766300000000 implements MigrationInterface {
  name = 'Experiments1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "experiments" ALTER COLUMN "prereg" DROP NOT NULL`);
    await q.query(`ALTER TABLE "experiments" ALTER COLUMN "prereg_hash" DROP NOT NULL`);
    await q.query(`ALTER TABLE "experiments" ALTER COLUMN "locked_at" DROP NOT NULL`);
    await q.query(`ALTER TABLE "experiments" ADD "status" text NOT NULL DEFAULT 'locked'`);
    await q.query(`ALTER TABLE "experiments" ADD CONSTRAINT "ck_experiments_status" CHECK ("status" IN ('draft', 'locked', 'decided', 'rejected'))`);
    await q.query(`ALTER TABLE "experiments" ADD "repo" text`);
    await q.query(`ALTER TABLE "experiments" ADD "commit" text`);
    await q.query(`ALTER TABLE "experiments" ADD "source" jsonb`);
    await q.query(`ALTER TABLE "experiments" ADD "run_id" text`);
    await q.query(`ALTER TABLE "experiments" ADD "interpretation" jsonb`);
    await q.query(`ALTER TABLE "experiments" ADD "created_by" text`);
    await q.query(`CREATE INDEX "ix_experiments_created_at" ON "experiments" ("created_at")`);
    await q.query(`CREATE INDEX "ix_experiments_source_idea_id" ON "experiments" (("source" ->> 'idea_id'))`);
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge', 'tool', 'export', 'experiment'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "workspace_ops" WHERE "kind" = 'experiment'`);
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge', 'tool', 'export'))`);
    await q.query(`DROP INDEX "ix_experiments_source_idea_id"`);
    await q.query(`DROP INDEX "ix_experiments_created_at"`);
    await q.query(`DELETE FROM "experiments" WHERE "prereg" IS NULL OR "prereg_hash" IS NULL OR "locked_at" IS NULL`);
    for (const c of ['created_by', 'interpretation', 'run_id', 'source', 'commit', 'repo']) await q.query(`ALTER TABLE "experiments" DROP COLUMN "${c}"`);
    await q.query(`ALTER TABLE "experiments" DROP CONSTRAINT "ck_experiments_status"`);
    await q.query(`ALTER TABLE "experiments" DROP COLUMN "status"`);
    await q.query(`ALTER TABLE "experiments" ALTER COLUMN "locked_at" SET NOT NULL`);
    await q.query(`ALTER TABLE "experiments" ALTER COLUMN "prereg_hash" SET NOT NULL`);
    await q.query(`ALTER TABLE "experiments" ALTER COLUMN "prereg" SET NOT NULL`);
  }
}
