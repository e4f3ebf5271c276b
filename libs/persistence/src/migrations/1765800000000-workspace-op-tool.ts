import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tool op of the workspace_ops (issue 21): the tools one turn of an agent-mode engineer on
 * an API provider called, run by the test-runner in the run's worktree, and their results.
 */
export class WorkspaceOpTool1765800000000 implements MigrationInterface {
  name = 'WorkspaceOpTool1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge', 'tool'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "workspace_ops" WHERE "kind" = 'tool'`);
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge'))`);
  }
}
