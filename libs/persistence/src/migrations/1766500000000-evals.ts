import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Evaluations (issue 25): an eval, its tasks (the hidden tests in their own column), its cells
 * (a task under a configuration, and its score), and on each run the cell it answers for.
 */
export class Evals1766500000000 implements MigrationInterface {
  name = 'Evals1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "evals" (
        "id" text NOT NULL,
        "suite" text NOT NULL,
        "score" text NOT NULL,
        "status" text NOT NULL DEFAULT 'running',
        "budget" jsonb NOT NULL,
        "configs" jsonb NOT NULL,
        "submitted_by" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "finished_at" timestamptz,
        CONSTRAINT "pk_evals" PRIMARY KEY ("id"),
        CONSTRAINT "ck_evals_status" CHECK ("status" IN ('running', 'done')),
        CONSTRAINT "ck_evals_score" CHECK ("score" IN ('hidden_tests', 'verdict'))
      )`);
    await q.query(`CREATE INDEX "ix_evals_created_at" ON "evals" ("created_at")`);
    await q.query(`
      CREATE TABLE "eval_tasks" (
        "eval_id" text NOT NULL,
        "task_id" text NOT NULL,
        "position" integer NOT NULL,
        "difficulty" text NOT NULL,
        "spec" jsonb NOT NULL,
        "hidden" jsonb,
        CONSTRAINT "pk_eval_tasks" PRIMARY KEY ("eval_id", "task_id"),
        CONSTRAINT "fk_eval_tasks_eval_id" FOREIGN KEY ("eval_id") REFERENCES "evals" ("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "eval_cells" (
        "id" text NOT NULL,
        "eval_id" text NOT NULL,
        "task_id" text NOT NULL,
        "config" text NOT NULL,
        "status" text NOT NULL DEFAULT 'running',
        "chosen_run_id" text,
        "passed" boolean,
        "reason" text,
        "detail" jsonb,
        "tokens" integer NOT NULL DEFAULT 0,
        "cost_usd" numeric(12,6) NOT NULL DEFAULT 0,
        "seconds" double precision NOT NULL DEFAULT 0,
        "scoring_started_at" timestamptz,
        "scored_at" timestamptz,
        CONSTRAINT "pk_eval_cells" PRIMARY KEY ("id"),
        CONSTRAINT "ck_eval_cells_status" CHECK ("status" IN ('running', 'scored', 'error')),
        CONSTRAINT "fk_eval_cells_eval_id" FOREIGN KEY ("eval_id") REFERENCES "evals" ("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_eval_cells_eval_id" ON "eval_cells" ("eval_id")`);
    await q.query(`ALTER TABLE "runs" ADD "eval_cell_id" text`);
    await q.query(`CREATE INDEX "ix_runs_eval_cell_id" ON "runs" ("eval_cell_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_runs_eval_cell_id"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "eval_cell_id"`);
    await q.query(`DROP TABLE "eval_cells"`);
    await q.query(`DROP TABLE "eval_tasks"`);
    await q.query(`DROP TABLE "evals"`);
  }
}
