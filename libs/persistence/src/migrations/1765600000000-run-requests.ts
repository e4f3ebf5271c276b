import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What people asked of a run and what the orchestrator has applied, on the run itself (issue 28
 * §4), so the api never learns it from the orchestrator's plumbing (outbox rows, the inbox):
 * `requests` counts the resume and appeal requests the api accepted (written by the api alone,
 * under the run lock; the count also numbers each request's job), `requests_applied` those a
 * step has applied (written by the step alone). A request is pending while it has more asked
 * than applied. Backfilled from the outbox and the inbox for the runs already there.
 */
export class RunRequests1765600000000 implements MigrationInterface {
  name = 'RunRequests1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" ADD COLUMN "requests" jsonb NOT NULL DEFAULT '{}'`);
    await q.query(`ALTER TABLE "runs" ADD COLUMN "requests_applied" jsonb NOT NULL DEFAULT '{}'`);
    await q.query(
      `UPDATE runs r SET requests = x.counts
         FROM (SELECT run_id, jsonb_object_agg(job_name, n) AS counts
                 FROM (SELECT run_id, job_name, count(*)::int AS n FROM outbox
                        WHERE job_name IN ('run.resume', 'run.appeal') AND run_id IS NOT NULL GROUP BY run_id, job_name) c
                GROUP BY run_id) x
        WHERE x.run_id = r.id`,
    );
    await q.query(
      `UPDATE runs r SET requests_applied = x.counts
         FROM (SELECT run_id, jsonb_object_agg(job_name, n) AS counts
                 FROM (SELECT run_id, split_part(event_key, ':', 1) AS job_name, count(*)::int AS n FROM applied_events
                        WHERE event_key LIKE 'run.resume:%' OR event_key LIKE 'run.appeal:%' GROUP BY run_id, split_part(event_key, ':', 1)) c
                GROUP BY run_id) x
        WHERE x.run_id = r.id`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "runs" DROP COLUMN "requests_applied"`);
    await q.query(`ALTER TABLE "runs" DROP COLUMN "requests"`);
  }
}
