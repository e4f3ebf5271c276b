import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People in the loop (issue 21): the gate a run waits at (`gate`, written by the step, null
 * unless the run is awaiting_approval), when the wait began and how long the run has waited
 * in all (a wait does not count against max_seconds), who submitted the run (the api token's
 * name: four eyes refuses that token's approval), a person's answer to an open question, and
 * the merge op of the workspace_ops.
 */
export class PeopleInTheLoop1765700000000 implements MigrationInterface {
  name = 'PeopleInTheLoop1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" DROP CONSTRAINT "ck_runs_status"`);
    await q.query(
      `ALTER TABLE "runs" ADD CONSTRAINT "ck_runs_status" CHECK ("status" IN ('queued', 'running', 'awaiting_approval', 'done', 'halted', 'needs_input', 'cancelled', 'failed'))`,
    );
    await q.query(`ALTER TABLE "runs" ADD COLUMN "gate" jsonb`);
    await q.query(`ALTER TABLE "runs" ADD COLUMN "gate_opened_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "runs" ADD COLUMN "waited_seconds" double precision NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE "runs" ADD COLUMN "submitted_by" text`);
    await q.query(`ALTER TABLE "open_questions" ADD COLUMN "answer" text`);
    await q.query(`ALTER TABLE "open_questions" ADD COLUMN "answered_by" text`);
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read'))`);
    await q.query(`ALTER TABLE "open_questions" DROP COLUMN "answered_by"`);
    await q.query(`ALTER TABLE "open_questions" DROP COLUMN "answer"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "submitted_by"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "waited_seconds"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "gate_opened_at"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "gate"`);
    await q.query(`ALTER TABLE "runs" DROP CONSTRAINT "ck_runs_status"`);
    await q.query(`ALTER TABLE "runs" ADD CONSTRAINT "ck_runs_status" CHECK ("status" IN ('queued', 'running', 'done', 'halted', 'needs_input', 'cancelled', 'failed'))`);
  }
}
