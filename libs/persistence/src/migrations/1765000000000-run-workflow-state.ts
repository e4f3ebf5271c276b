import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A non-build workflow's own state, one JSON document on the run row. The panel's state is
 * small (five verdicts, a transcript, the re-votes) and always read whole under the run's
 * row lock, so it lives beside `stage` and `status` instead of in tables of its own; usage is
 * not in it (that stays in usage_by_provider and budget_reservations, as for the build), and
 * the audit rows (agent_calls, decisions, run_events) are the build's. NULL for a build run
 * and for a run not yet started.
 */
export class RunWorkflowState1765000000000 implements MigrationInterface {
  name = 'RunWorkflowState1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" ADD COLUMN "workflow_state" jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" DROP COLUMN "workflow_state"`);
  }
}
