import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The playground's calls (issue 22): a run's call tried again with an edited prompt, model or provider, outside the run's usage. */
export class PlaygroundCalls1765900000000 implements MigrationInterface {
  name = 'PlaygroundCalls1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "playground_calls" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "source_call_id" text NOT NULL,
        "role" text NOT NULL,
        "provider" text NOT NULL,
        "model" text NOT NULL,
        "schema_name" text NOT NULL,
        "messages" jsonb NOT NULL,
        "max_tokens" integer NOT NULL,
        "temperature" double precision NOT NULL,
        "timeout_ms" integer NOT NULL,
        "status" text NOT NULL DEFAULT 'queued',
        "response_text" text,
        "parsed" jsonb,
        "valid" boolean,
        "error" text,
        "error_code" text,
        "input_tokens" integer,
        "output_tokens" integer,
        "cost_usd" numeric(12,6),
        "latency_ms" integer,
        "requested_by" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "finished_at" timestamptz,
        CONSTRAINT "pk_playground_calls" PRIMARY KEY ("id"),
        CONSTRAINT "fk_playground_calls_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "ck_playground_calls_status" CHECK ("status" IN ('queued', 'running', 'completed', 'failed'))
      )`);
    await q.query(`CREATE INDEX "ix_playground_calls_run_id" ON "playground_calls" ("run_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "playground_calls"`);
  }
}
