import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transient-failure retries as their own rows: `retry_of` links an attempt to the one it
 * retries (same messages, same provider), `retry` counts them (0 = the first try). Kept apart
 * from `attempt`/`repair_of`, which belong to the schema-repair call, so neither is mistaken
 * for the other.
 */
export class AgentCallRetries1764600000000 implements MigrationInterface {
  name = 'AgentCallRetries1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "agent_calls" ADD COLUMN "retry" integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE "agent_calls" ADD COLUMN "retry_of" text`);
    await q.query(
      `ALTER TABLE "agent_calls" ADD CONSTRAINT "fk_agent_calls_retry_of" FOREIGN KEY ("retry_of") REFERENCES "agent_calls" ("id")`,
    );
    await q.query(`CREATE INDEX "ix_agent_calls_retry_of" ON "agent_calls" ("retry_of")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_agent_calls_retry_of"`);
    await q.query(`ALTER TABLE "agent_calls" DROP CONSTRAINT "fk_agent_calls_retry_of"`);
    await q.query(`ALTER TABLE "agent_calls" DROP COLUMN "retry_of"`);
    await q.query(`ALTER TABLE "agent_calls" DROP COLUMN "retry"`);
  }
}
