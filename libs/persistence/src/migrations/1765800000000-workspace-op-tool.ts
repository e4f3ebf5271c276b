import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 21's last two workspace ops: `tool` (the tools one turn of an agent-mode engineer on an
 * API provider called, run by the test-runner in the run's worktree, and their results) and
 * `export` (a run that cannot be merged, a greenfield run or a copy of a plain directory, offers
 * its branch as a git bundle and a patch: two artifacts, stored base64 since both are bytes).
 */
export class WorkspaceOpTool1765800000000 implements MigrationInterface {
  name = 'WorkspaceOpTool1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge', 'tool', 'export'))`);
    await q.query(`ALTER TABLE "artifacts" DROP CONSTRAINT "ck_artifacts_kind"`);
    await q.query(`ALTER TABLE "artifacts" ADD CONSTRAINT "ck_artifacts_kind" CHECK ("kind" IN ('file', 'test_output', 'diff', 'report', 'bundle', 'patch'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "artifacts" WHERE "kind" IN ('bundle', 'patch')`);
    await q.query(`ALTER TABLE "artifacts" DROP CONSTRAINT "ck_artifacts_kind"`);
    await q.query(`ALTER TABLE "artifacts" ADD CONSTRAINT "ck_artifacts_kind" CHECK ("kind" IN ('file', 'test_output', 'diff', 'report'))`);
    await q.query(`DELETE FROM "workspace_ops" WHERE "kind" IN ('tool', 'export')`);
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge'))`);
  }
}
