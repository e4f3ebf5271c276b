import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A submission's Idempotency-Key, kept with the run it made (issue 15 §2): the same key from the
 * same principal (the API token's name, `anonymous` when the API runs open) names one run at most,
 * and the unique index is what decides between two concurrent submits. `request_hash` is the
 * SHA-256 of the body the key was first used with, so a different body under the same key is
 * refused rather than answered with a run made from something else. Null: no key was sent.
 */
export class RunIdempotencyKey1765500000000 implements MigrationInterface {
  name = 'RunIdempotencyKey1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" ADD COLUMN "idempotency_principal" text`);
    await q.query(`ALTER TABLE "runs" ADD COLUMN "idempotency_key" text`);
    await q.query(`ALTER TABLE "runs" ADD COLUMN "request_hash" text`);
    await q.query(`CREATE UNIQUE INDEX "ux_runs_idempotency_key" ON "runs" ("idempotency_principal", "idempotency_key")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ux_runs_idempotency_key"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "request_hash"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "idempotency_key"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "idempotency_principal"`);
  }
}
