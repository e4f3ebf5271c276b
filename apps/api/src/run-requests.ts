import type { EntityManager } from 'typeorm';
import type { RequestJobName } from '@roundtable/contracts';

/**
 * What people asked of a run, on the run row: `runs.requests` counts the resume and appeal
 * requests the api accepted (the api is its one writer, under the run lock), `requests_applied`
 * those the orchestrator's step has applied (the step is its one writer). A request is pending
 * while more were asked than applied. Nothing here reads the orchestrator's outbox or inbox.
 */

type Counts = Partial<Record<string, number>> | null | undefined;

/** How many requests of this job the api accepted for the run. */
export const requestsAsked = (requests: Counts, job: string): number => Number(requests?.[job] ?? 0);

/** Requests of this job accepted and not yet applied by a step. */
export const requestsPending = (run: { requests: Counts; requestsApplied: Counts }, job: RequestJobName): number =>
  requestsAsked(run.requests, job) - Number(run.requestsApplied?.[job] ?? 0);

/** Counts one more accepted request (inside the transaction that holds the run lock and writes its job). */
export async function countRequest(em: EntityManager, runId: string, job: RequestJobName): Promise<void> {
  await em.query(
    `UPDATE runs SET requests = jsonb_set(requests, ARRAY[$2::text], to_jsonb(coalesce((requests ->> $2::text)::int, 0) + 1)) WHERE id = $1`,
    [runId, job],
  );
}

/** SQL (a boolean over `runs r`): a request of this job was asked and no step has applied it yet. */
export const requestPendingSql = (job: RequestJobName): string =>
  `(coalesce((r.requests ->> '${job}')::int, 0) > coalesce((r.requests_applied ->> '${job}')::int, 0))`;
