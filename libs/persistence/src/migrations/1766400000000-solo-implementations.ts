import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The solo pipeline (issue 25): a build whose engineer works from the objective and requirements
 * alone, with no proposal written or debated. Its implementations have no proposal to point at,
 * so `implementations.proposal_id` may be null (the foreign key still holds for every one that has).
 */
export class SoloImplementations1766400000000 implements MigrationInterface {
  name = 'SoloImplementations1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "implementations" ALTER COLUMN "proposal_id" DROP NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "implementations" WHERE "proposal_id" IS NULL`);
    await q.query(`ALTER TABLE "implementations" ALTER COLUMN "proposal_id" SET NOT NULL`);
  }
}
