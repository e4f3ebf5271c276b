import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Caps across runs (issue 26): a project is what its files name (projects.name; every run has a
 * projects row of its own), so a capped project's figures are read by name in each step of its
 * runs. Inserted once per run, never updated: the index costs a deployment without caps nothing.
 */
export class ProjectNameIndex1766630000000 implements MigrationInterface {
  name = 'ProjectNameIndex1766630000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "ix_projects_name" ON "projects" ("name")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_projects_name"`);
  }
}
