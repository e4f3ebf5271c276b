import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reply is stored as received, except for what Postgres cannot hold in text or jsonb (NUL,
 * lone UTF-16 surrogates): those are stored as their `\uXXXX` escape, and this says so. Null:
 * no reply was stored (a failed try), or the row predates the column.
 */
export class AgentCallResponseEscaped1765210000000 implements MigrationInterface {
  name = 'AgentCallResponseEscaped1765210000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "agent_calls" ADD COLUMN "response_escaped" boolean`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "agent_calls" DROP COLUMN "response_escaped"`);
  }
}
