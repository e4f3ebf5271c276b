import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24's workspace op: `experiment`, an experiment's preregistered command run by the
 * test-runner in the sandbox, in a worktree at the experiment's pinned commit, with the metrics
 * it reported.
 */
export class WorkspaceOpExperiment1766300000000 implements MigrationInterface {
  name = 'WorkspaceOpExperiment1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge', 'tool', 'export', 'experiment'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "workspace_ops" WHERE "kind" = 'experiment'`);
    await q.query(`ALTER TABLE "workspace_ops" DROP CONSTRAINT "ck_workspace_ops_kind"`);
    await q.query(`ALTER TABLE "workspace_ops" ADD CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests', 'read', 'merge', 'tool', 'export'))`);
  }
}
