import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reading before writing (issue 4): a role's request to read files is a workspace operation
 * like preparing, applying and testing, so the test-runner (which owns the workspace volume)
 * serves it and the row records what was asked and what was read.
 */
export class WorkspaceOpRead1765100000000 implements MigrationInterface {
  name = 'WorkspaceOpRead1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "workspace_ops" WHERE "kind" = 'read'`);
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests'))`);
  }
}
