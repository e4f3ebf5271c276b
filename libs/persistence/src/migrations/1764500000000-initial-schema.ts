import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The baseline schema (seed §7 in Postgres types, plus the event log, outbox, budget
 * reservations and inbox). Hand-written SQL so a reviewer reads exactly what runs; the
 * schema-drift test fails if it and the entities disagree.
 */
export class InitialSchema1764500000000 implements MigrationInterface {
  name = 'InitialSchema1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "projects" (
        "id" text NOT NULL,
        "name" text NOT NULL,
        "objective" text NOT NULL,
        "requirements" jsonb NOT NULL,
        "config" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_projects" PRIMARY KEY ("id")
      )`);

    await q.query(`
      CREATE TABLE "runs" (
        "id" text NOT NULL,
        "project_id" text NOT NULL,
        "workflow" text NOT NULL DEFAULT 'build',
        "status" text NOT NULL,
        "stage" text NOT NULL,
        "round" integer NOT NULL DEFAULT 0,
        "fix_round" integer NOT NULL DEFAULT 0,
        "config" jsonb NOT NULL,
        "workspace_path" text,
        "criteria" jsonb,
        "criteria_locked" boolean NOT NULL DEFAULT false,
        "unresolved" boolean NOT NULL DEFAULT false,
        "halt_reason" text,
        "verdict" text,
        "confidence" double precision,
        "event_seq" integer NOT NULL DEFAULT 0,
        "call_seq" integer NOT NULL DEFAULT 0,
        "label_counters" jsonb NOT NULL DEFAULT '{}',
        "started_at" timestamptz,
        "finished_at" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_runs" PRIMARY KEY ("id"),
        CONSTRAINT "fk_runs_project_id" FOREIGN KEY ("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE,
        CONSTRAINT "ck_runs_status" CHECK ("status" IN ('queued', 'running', 'done', 'halted', 'needs_input', 'cancelled', 'failed'))
      )`);
    await q.query(`CREATE INDEX "ix_runs_status" ON "runs" ("status")`);
    await q.query(`CREATE INDEX "ix_runs_created_at" ON "runs" ("created_at")`);

    await q.query(`
      CREATE TABLE "agent_calls" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "seq" integer NOT NULL,
        "stage" text NOT NULL,
        "role" text NOT NULL,
        "provider" text NOT NULL,
        "model" text NOT NULL,
        "label" text,
        "attempt" integer NOT NULL DEFAULT 1,
        "repair_of" text,
        "status" text NOT NULL,
        "prompt_hash" text NOT NULL,
        "messages" jsonb NOT NULL,
        "context_refs" jsonb NOT NULL DEFAULT '[]',
        "schema_name" text,
        "max_tokens" integer,
        "temperature" double precision,
        "timeout_ms" integer,
        "response_text" text,
        "parsed" jsonb,
        "valid" boolean,
        "error" text,
        "error_code" text,
        "input_tokens" integer,
        "output_tokens" integer,
        "cached_input_tokens" integer,
        "cost_usd" numeric(12,6),
        "cost_source" text,
        "latency_ms" integer,
        "request_id" text,
        "billing" text,
        "argv" jsonb,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "started_at" timestamptz,
        "finished_at" timestamptz,
        CONSTRAINT "pk_agent_calls" PRIMARY KEY ("id"),
        CONSTRAINT "fk_agent_calls_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_agent_calls_repair_of" FOREIGN KEY ("repair_of") REFERENCES "agent_calls" ("id"),
        CONSTRAINT "ck_agent_calls_status" CHECK ("status" IN ('queued', 'running', 'completed', 'failed'))
      )`);
    await q.query(`CREATE UNIQUE INDEX "ux_agent_calls_run_id_seq" ON "agent_calls" ("run_id", "seq")`);
    await q.query(`CREATE INDEX "ix_agent_calls_run_id_role" ON "agent_calls" ("run_id", "role")`);
    await q.query(`CREATE INDEX "ix_agent_calls_run_id_stage" ON "agent_calls" ("run_id", "stage")`);

    await q.query(`
      CREATE TABLE "proposals" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "call_id" text NOT NULL,
        "label" text NOT NULL,
        "revision_of" text,
        "round" integer NOT NULL,
        "status" text NOT NULL,
        "body" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_proposals" PRIMARY KEY ("id"),
        CONSTRAINT "fk_proposals_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_proposals_call_id" FOREIGN KEY ("call_id") REFERENCES "agent_calls" ("id"),
        CONSTRAINT "fk_proposals_revision_of" FOREIGN KEY ("revision_of") REFERENCES "proposals" ("id")
      )`);
    await q.query(`CREATE INDEX "ix_proposals_run_id" ON "proposals" ("run_id")`);

    await q.query(`
      CREATE TABLE "critiques" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "call_id" text NOT NULL,
        "label" text NOT NULL,
        "target_kind" text NOT NULL,
        "target_id" text NOT NULL,
        "verdict" text NOT NULL,
        "body" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_critiques" PRIMARY KEY ("id"),
        CONSTRAINT "fk_critiques_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_critiques_call_id" FOREIGN KEY ("call_id") REFERENCES "agent_calls" ("id"),
        CONSTRAINT "ck_critiques_target_kind" CHECK ("target_kind" IN ('proposal', 'implementation'))
      )`);
    await q.query(`CREATE INDEX "ix_critiques_run_id" ON "critiques" ("run_id")`);
    await q.query(`CREATE INDEX "ix_critiques_target_id" ON "critiques" ("target_id")`);

    await q.query(`
      CREATE TABLE "syntheses" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "call_id" text,
        "label" text NOT NULL,
        "verdict" text,
        "partial" boolean NOT NULL,
        "body" jsonb,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_syntheses" PRIMARY KEY ("id"),
        CONSTRAINT "fk_syntheses_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_syntheses_call_id" FOREIGN KEY ("call_id") REFERENCES "agent_calls" ("id")
      )`);
    await q.query(`CREATE INDEX "ix_syntheses_run_id" ON "syntheses" ("run_id")`);

    await q.query(`
      CREATE TABLE "artifacts" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "call_id" text,
        "kind" text NOT NULL,
        "path" text NOT NULL,
        "sha256" text NOT NULL,
        "bytes" integer NOT NULL,
        "content" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_artifacts" PRIMARY KEY ("id"),
        CONSTRAINT "fk_artifacts_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_artifacts_call_id" FOREIGN KEY ("call_id") REFERENCES "agent_calls" ("id"),
        CONSTRAINT "ck_artifacts_kind" CHECK ("kind" IN ('file', 'test_output', 'diff', 'report'))
      )`);
    await q.query(`CREATE INDEX "ix_artifacts_run_id" ON "artifacts" ("run_id")`);

    await q.query(`
      CREATE TABLE "implementations" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "call_id" text NOT NULL,
        "label" text NOT NULL,
        "proposal_id" text NOT NULL,
        "fix_round" integer NOT NULL,
        "artifact_ids" jsonb NOT NULL DEFAULT '[]',
        "body" jsonb NOT NULL,
        "status" text NOT NULL,
        "apply_error" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_implementations" PRIMARY KEY ("id"),
        CONSTRAINT "fk_implementations_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_implementations_call_id" FOREIGN KEY ("call_id") REFERENCES "agent_calls" ("id"),
        CONSTRAINT "fk_implementations_proposal_id" FOREIGN KEY ("proposal_id") REFERENCES "proposals" ("id"),
        CONSTRAINT "ck_implementations_status" CHECK ("status" IN ('pending', 'applied', 'rejected'))
      )`);
    await q.query(`CREATE INDEX "ix_implementations_run_id" ON "implementations" ("run_id")`);

    await q.query(`
      CREATE TABLE "test_runs" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "implementation_id" text NOT NULL,
        "label" text NOT NULL,
        "command" text NOT NULL,
        "exit_code" integer NOT NULL,
        "passed" integer,
        "failed" integer,
        "errors" integer,
        "timed_out" boolean NOT NULL,
        "output_artifact_id" text,
        "duration_s" double precision,
        "runner" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_test_runs" PRIMARY KEY ("id"),
        CONSTRAINT "fk_test_runs_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_test_runs_implementation_id" FOREIGN KEY ("implementation_id") REFERENCES "implementations" ("id"),
        CONSTRAINT "fk_test_runs_output_artifact_id" FOREIGN KEY ("output_artifact_id") REFERENCES "artifacts" ("id")
      )`);
    await q.query(`CREATE INDEX "ix_test_runs_run_id" ON "test_runs" ("run_id")`);

    await q.query(`
      CREATE TABLE "workspace_ops" (
        "id" text NOT NULL,
        "run_id" text NOT NULL,
        "kind" text NOT NULL,
        "status" text NOT NULL,
        "implementation_id" text,
        "result" jsonb,
        "error" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "finished_at" timestamptz,
        CONSTRAINT "pk_workspace_ops" PRIMARY KEY ("id"),
        CONSTRAINT "fk_workspace_ops_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_workspace_ops_implementation_id" FOREIGN KEY ("implementation_id") REFERENCES "implementations" ("id"),
        CONSTRAINT "ck_workspace_ops_kind" CHECK ("kind" IN ('prepare', 'apply', 'tests')),
        CONSTRAINT "ck_workspace_ops_status" CHECK ("status" IN ('queued', 'done', 'failed'))
      )`);
    await q.query(`CREATE INDEX "ix_workspace_ops_run_id" ON "workspace_ops" ("run_id")`);

    await q.query(`
      CREATE TABLE "decisions" (
        "id" bigserial NOT NULL,
        "run_id" text NOT NULL,
        "from_stage" text NOT NULL,
        "to_stage" text NOT NULL,
        "reason" text NOT NULL,
        "refs" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_decisions" PRIMARY KEY ("id"),
        CONSTRAINT "fk_decisions_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_decisions_run_id" ON "decisions" ("run_id")`);

    await q.query(`
      CREATE TABLE "open_questions" (
        "id" serial NOT NULL,
        "run_id" text NOT NULL,
        "raised_by_role" text NOT NULL,
        "question" text NOT NULL,
        "status" text NOT NULL DEFAULT 'open',
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_open_questions" PRIMARY KEY ("id"),
        CONSTRAINT "fk_open_questions_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_open_questions_run_id" ON "open_questions" ("run_id")`);

    await q.query(`
      CREATE TABLE "hypotheses" (
        "id" text NOT NULL,
        "project_id" text NOT NULL,
        "statement" text NOT NULL,
        "status" text NOT NULL,
        "body" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_hypotheses" PRIMARY KEY ("id"),
        CONSTRAINT "fk_hypotheses_project_id" FOREIGN KEY ("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE
      )`);

    await q.query(`
      CREATE TABLE "experiments" (
        "id" text NOT NULL,
        "project_id" text NOT NULL,
        "hypothesis_id" text,
        "prereg" jsonb NOT NULL,
        "prereg_hash" text NOT NULL,
        "locked_at" timestamptz NOT NULL,
        "result" jsonb,
        "result_hash_check" boolean,
        "interpreted_at" timestamptz,
        "decision" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_experiments" PRIMARY KEY ("id"),
        CONSTRAINT "fk_experiments_project_id" FOREIGN KEY ("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_experiments_hypothesis_id" FOREIGN KEY ("hypothesis_id") REFERENCES "hypotheses" ("id")
      )`);

    await q.query(`
      CREATE TABLE "lessons" (
        "id" serial NOT NULL,
        "project_id" text,
        "scope" text NOT NULL,
        "text" text NOT NULL,
        "tags" jsonb NOT NULL DEFAULT '[]',
        "source_run_id" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_lessons" PRIMARY KEY ("id"),
        CONSTRAINT "fk_lessons_project_id" FOREIGN KEY ("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE
      )`);

    await q.query(`
      CREATE TABLE "usage_by_provider" (
        "run_id" text NOT NULL,
        "provider" text NOT NULL,
        "calls" integer NOT NULL,
        "input_tokens" integer NOT NULL,
        "output_tokens" integer NOT NULL,
        "cost_usd" numeric(12,6),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_usage_by_provider" PRIMARY KEY ("run_id", "provider"),
        CONSTRAINT "fk_usage_by_provider_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE
      )`);

    await q.query(`
      CREATE TABLE "run_events" (
        "run_id" text NOT NULL,
        "sequence" integer NOT NULL,
        "type" text NOT NULL,
        "payload" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_run_events" PRIMARY KEY ("run_id", "sequence"),
        CONSTRAINT "fk_run_events_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE
      )`);

    await q.query(`
      CREATE TABLE "outbox" (
        "id" bigserial NOT NULL,
        "run_id" text,
        "queue" text NOT NULL,
        "job_name" text NOT NULL,
        "job_id" text NOT NULL,
        "payload" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "sent_at" timestamptz,
        CONSTRAINT "pk_outbox" PRIMARY KEY ("id"),
        CONSTRAINT "fk_outbox_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_outbox_unsent_created_at" ON "outbox" ("created_at") WHERE "sent_at" IS NULL`);
    await q.query(`CREATE INDEX "ix_outbox_run_id" ON "outbox" ("run_id")`);

    await q.query(`
      CREATE TABLE "budget_reservations" (
        "call_id" text NOT NULL,
        "run_id" text NOT NULL,
        "provider" text NOT NULL,
        "calls" integer NOT NULL,
        "tokens" integer NOT NULL,
        "cost_usd" numeric(12,6),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_budget_reservations" PRIMARY KEY ("call_id"),
        CONSTRAINT "fk_budget_reservations_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_budget_reservations_run_id" ON "budget_reservations" ("run_id")`);

    await q.query(`
      CREATE TABLE "applied_events" (
        "run_id" text NOT NULL,
        "event_key" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_applied_events" PRIMARY KEY ("run_id", "event_key"),
        CONSTRAINT "fk_applied_events_run_id" FOREIGN KEY ("run_id") REFERENCES "runs" ("id") ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Reverse order of creation, so every table is dropped after the tables that reference it.
    for (const table of [
      'applied_events',
      'budget_reservations',
      'outbox',
      'run_events',
      'usage_by_provider',
      'lessons',
      'experiments',
      'hypotheses',
      'open_questions',
      'decisions',
      'workspace_ops',
      'test_runs',
      'implementations',
      'artifacts',
      'syntheses',
      'critiques',
      'proposals',
      'agent_calls',
      'runs',
      'projects',
    ]) {
      await q.query(`DROP TABLE "${table}"`);
    }
  }
}
