import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ideas as versioned worksheets with an evidence ledger (issue 23). `idea_versions` rows are
 * written once; `locked_by_run` is set by the first panel submitted on the version, in the
 * submission's transaction. `evidence_entries` is append-only (E1, E2 … per idea, numbered from
 * `ideas.evidence_seq` under the idea's row lock). A panel run records the version it judged on
 * `runs.idea_id` / `runs.idea_version`.
 */
export class IdeaWorksheets1766100000000 implements MigrationInterface {
  name = 'IdeaWorksheets1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "ideas" (
        "id" text NOT NULL,
        "title" text NOT NULL,
        "latest_version" integer NOT NULL,
        "evidence_seq" integer NOT NULL DEFAULT 0,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_ideas" PRIMARY KEY ("id")
      )`);
    await q.query(`CREATE INDEX "ix_ideas_created_at" ON "ideas" ("created_at")`);
    await q.query(`
      CREATE TABLE "idea_versions" (
        "idea_id" text NOT NULL,
        "version" integer NOT NULL,
        "worksheet" jsonb NOT NULL,
        "created_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "locked_by_run" text,
        "locked_at" timestamptz,
        CONSTRAINT "pk_idea_versions" PRIMARY KEY ("idea_id", "version"),
        CONSTRAINT "fk_idea_versions_idea_id" FOREIGN KEY ("idea_id") REFERENCES "ideas" ("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "evidence_entries" (
        "idea_id" text NOT NULL,
        "entry_id" text NOT NULL,
        "seq" integer NOT NULL,
        "claim" text NOT NULL,
        "source" text NOT NULL,
        "kind" text NOT NULL,
        "date" date NOT NULL,
        "supersedes" text,
        "logged_by" text NOT NULL,
        "logged_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_evidence_entries" PRIMARY KEY ("idea_id", "entry_id"),
        CONSTRAINT "fk_evidence_entries_idea_id" FOREIGN KEY ("idea_id") REFERENCES "ideas" ("id") ON DELETE CASCADE,
        CONSTRAINT "ck_evidence_entries_kind" CHECK ("kind" IN ('interview', 'metric', 'document', 'experiment_result'))
      )`);
    await q.query(`ALTER TABLE "runs" ADD "idea_id" text`);
    await q.query(`ALTER TABLE "runs" ADD "idea_version" integer`);
    await q.query(`CREATE INDEX "ix_runs_idea_id_version" ON "runs" ("idea_id", "idea_version")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_runs_idea_id_version"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "idea_version"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "idea_id"`);
    await q.query(`DROP TABLE "evidence_entries"`);
    await q.query(`DROP TABLE "idea_versions"`);
    await q.query(`DROP TABLE "ideas"`);
  }
}
