import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A failed try's verdict, recorded by the provider-worker with the rest of its outcome: is the
 * failure worth asking again (network, 5xx, 429, timeout, interrupted), and after how long the
 * provider asked to be left alone (a 429's retry-after). The orchestrator's engine reads them
 * to decide the retry (issue 13 item 2). Null: the try did not fail, or predates the columns.
 */
export class AgentCallRetryable1765300000000 implements MigrationInterface {
  name = 'AgentCallRetryable1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "agent_calls" ADD COLUMN "retryable" boolean`);
    await q.query(`ALTER TABLE "agent_calls" ADD COLUMN "retry_after_ms" integer`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "agent_calls" DROP COLUMN "retry_after_ms"`);
    await q.query(`ALTER TABLE "agent_calls" DROP COLUMN "retryable"`);
  }
}
