import type { DataSource, EntityManager } from 'typeorm';
import { IsNull, LessThan } from 'typeorm';
import { jobSchema, JobName, JobOf, queueKindOf } from '@roundtable/contracts';
import { queueNameFor, withTraceCarrier, type JobProducer } from '@roundtable/queues';
import { OutboxEntity, preparedQuery } from '@roundtable/persistence';

/**
 * A job to send, as an outbox row holds it: one member per job of the catalogue, so `payload`
 * is `JobOf<jobName>` (compile time) and is parsed against the catalogue when written (run time).
 */
export type OutboxJob = {
  [N in JobName]: {
    runId: string | null;
    queue: string;
    jobName: N;
    jobId: string;
    payload: JobOf<N>;
    /**
     * Enqueue as a BullMQ delayed job, this many ms after the commit (a transient retry's
     * backoff). Stored on the row as `not_before`, so a row the sweeper sends after a crash
     * waits out what is left of it.
     */
    delayMs?: number;
  };
}[JobName];

/** An outbox row as written: the job and the id it was given. */
export type OutboxRow = OutboxJob & { id: number };

/** An outbox job whose payload or queue the catalogue refuses: thrown before anything is written. */
export class OutboxJobInvalidError extends Error {
  constructor(
    readonly jobName: string,
    readonly jobId: string,
    readonly field: string,
    detail: string,
  ) {
    super(`outbox job ${jobName} (${jobId}): ${field}: ${detail} (the job catalogue, libs/contracts/src/jobs/job-catalogue.ts, says what it carries)`);
    this.name = 'OutboxJobInvalidError';
  }
}

/**
 * The outbox job for `name`, its queue derived from the catalogue (an agent job: the provider's
 * queue), so a caller never writes a queue name by hand.
 */
export function outboxJob<N extends JobName>(
  name: N,
  payload: JobOf<N>,
  opts: { runId: string | null; jobId: string; provider?: string; delayMs?: number },
): OutboxJob {
  const job = { runId: opts.runId, queue: queueNameFor(queueKindOf(name), opts.provider), jobName: name, jobId: opts.jobId, payload };
  return (opts.delayMs ? { ...job, delayMs: opts.delayMs } : job) as OutboxJob;
}

/**
 * The job as the catalogue has it: its payload parsed by the job's schema (unknown keys
 * dropped, as the typed producer does) and its queue one its job may go to. Throws
 * OutboxJobInvalidError naming the job and the field. The active span's trace context is put in
 * the payload here, when the row is written inside the step's transaction: the row is sent after
 * the commit (or by the sweeper, much later), and carries its sender's context with it.
 */
export function checkedOutboxJob(job: OutboxJob): OutboxJob {
  const name = job.jobName as string;
  let kind;
  try {
    kind = queueKindOf(name as JobName);
  } catch {
    throw new OutboxJobInvalidError(name, job.jobId, 'jobName', `${JSON.stringify(name)} is not a job of the catalogue`);
  }
  const parsed = jobSchema(name as JobName).safeParse(withTraceCarrier(job.payload));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ['payload', ...issue.path.map(String)].join('.');
    throw new OutboxJobInvalidError(name, job.jobId, field, issue.message);
  }
  const queueOk = kind === 'agent' ? /^agent\.[^:]+$/.test(job.queue) : job.queue === queueNameFor(kind);
  if (!queueOk) {
    throw new OutboxJobInvalidError(name, job.jobId, 'queue', `${JSON.stringify(job.queue)} is not a queue for ${kind} jobs`);
  }
  return { ...job, payload: parsed.data } as OutboxJob;
}

/** Writes jobs to send, in the caller's transaction: they exist exactly when the state change does. */
export async function addToOutbox(em: EntityManager, jobs: OutboxJob[]): Promise<number[]> {
  return (await writeOutbox(em, jobs)).map((r) => r.id);
}

/**
 * addToOutbox, answering with the rows themselves, so the caller can hand them to
 * OutboxDispatcher.dispatchRows after its commit instead of reading them back by id.
 * One INSERT for any number of jobs (plain SQL: this runs on every orchestrator step).
 */
export async function writeOutbox(em: EntityManager, jobs: OutboxJob[]): Promise<OutboxRow[]> {
  if (!jobs.length) return [];
  const insert = outboxInsert(jobs);
  const { rows } = await preparedQuery<{ id: string }>(em, insert.sql, insert.params);
  return insert.rowsOf(rows);
}

/** writeOutbox as a statement to send (e.g. in a StatementBatch); rowsOf() pairs its RETURNING rows with the jobs. */
export function outboxInsert(unchecked: OutboxJob[]): { sql: string; params: unknown[]; rowsOf: (returned: { id: unknown }[]) => OutboxRow[] } {
  // Checked here, before any INSERT is sent: a bad job fails the step's transaction by name.
  const jobs = unchecked.map(checkedOutboxJob);
  return {
    sql: `INSERT INTO outbox (run_id, queue, job_name, job_id, payload, not_before)
     SELECT j.run_id, j.queue, j.job_name, j.job_id, j.payload,
            CASE WHEN j.delay_ms > 0 THEN now() + j.delay_ms * interval '1 millisecond' END
       FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (run_id text, queue text, job_name text, job_id text, payload jsonb, delay_ms integer))
            WITH ORDINALITY AS j(run_id, queue, job_name, job_id, payload, delay_ms, ord)
      ORDER BY j.ord
     RETURNING id`,
    params: [
      JSON.stringify(jobs.map((j) => ({ run_id: j.runId, queue: j.queue, job_name: j.jobName, job_id: j.jobId, payload: j.payload, delay_ms: j.delayMs ?? 0 }))),
    ],
    rowsOf: (returned) => {
      // The serial ids are drawn in the SELECT's order, so ascending ids pair with the jobs in order.
      const ids = returned.map((r) => Number(r.id)).sort((a, b) => a - b);
      return jobs.map((j, i) => ({ ...j, id: ids[i] }));
    },
  };
}

/**
 * Sends outbox rows to BullMQ and marks them sent. Called right after a commit with that
 * step's ids, and by the sweeper for rows a crash left unsent. Deterministic job ids make a
 * second send of the same row a no-op in BullMQ.
 */
export class OutboxDispatcher {
  constructor(
    private readonly ds: DataSource,
    private readonly producer: JobProducer,
  ) {}

  async dispatch(ids: number[]): Promise<number> {
    if (!ids.length) return 0;
    // Plain SQL: this runs after every step, and building it through the ORM cost more CPU than the query.
    const rows: { id: string; queue: string; job_name: string; job_id: string; payload: Record<string, unknown> }[] = await this.ds.query(
      `SELECT id, queue, job_name, job_id, payload FROM outbox WHERE id = ANY($1) AND sent_at IS NULL ORDER BY id`,
      [ids],
    );
    return this.send(rows.map((r) => ({ id: Number(r.id), queue: r.queue, jobName: r.job_name, jobId: r.job_id, payload: r.payload })));
  }

  /**
   * dispatch() for rows the caller has just written and committed (writeOutbox): they are
   * unsent by construction, so they go out without being read back.
   */
  async dispatchRows(rows: OutboxRow[]): Promise<number> {
    return this.send(rows);
  }

  /** Re-sends rows left unsent for longer than `olderThanMs`. */
  async sweep(olderThanMs = 5000, batch = 500): Promise<number> {
    const rows = await this.ds.getRepository(OutboxEntity).find({
      where: { sentAt: IsNull(), createdAt: LessThan(new Date(Date.now() - olderThanMs)) },
      order: { id: 'ASC' },
      take: batch,
    });
    // A delayed job keeps what is left of its delay (not_before); one past it goes at once.
    const now = Date.now();
    return this.send(rows.map((r) => ({ ...r, delayMs: r.notBefore ? Math.max(0, r.notBefore.getTime() - now) : undefined })));
  }

  /**
   * After a cancel: takes back the jobs of this run that no worker has started (queued agent
   * calls and workspace/test operations), so nothing is left in any queue for the run. A job
   * already running is not touched: it finishes and is recorded.
   */
  async withdrawQueuedJobs(runId: string): Promise<number> {
    const rows: { queue: string; job_id: string }[] = await this.ds.query(
      `SELECT o.queue, o.job_id FROM outbox o
        WHERE o.run_id = $1
          AND (EXISTS (SELECT 1 FROM agent_calls c WHERE c.run_id = $1 AND c.status = 'queued' AND o.payload->>'callId' = c.id)
            OR EXISTS (SELECT 1 FROM workspace_ops w WHERE w.run_id = $1 AND w.status = 'queued' AND o.payload->>'opId' = w.id))`,
      [runId],
    );
    let removed = 0;
    for (const r of rows) {
      const job = await this.producer.queue(r.queue).getJob(r.job_id);
      if (job && (await job.isWaiting() || await job.isDelayed())) {
        await job.remove();
        removed++;
      }
    }
    return removed;
  }

  private async send(rows: (Pick<OutboxEntity, 'id' | 'queue' | 'jobName' | 'jobId' | 'payload'> & { delayMs?: number })[]): Promise<number> {
    if (!rows.length) return 0;
    // A step's jobs are independent (own queues, deterministic ids), so they go out together.
    const sent = await Promise.allSettled(rows.map((row) => this.sendOne(row)));
    await this.markSent(rows.filter((_, i) => sent[i].status === 'fulfilled').map((row) => row.id));
    const failed = sent.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason; // the unmarked rows are the sweeper's
    return rows.length;
  }

  /**
   * Through the typed producer, which parses the payload against the catalogue again: a row
   * read back (or written around writeOutbox) is sent only as the catalogue has it.
   */
  private sendOne(row: Pick<OutboxEntity, 'queue' | 'jobName' | 'jobId' | 'payload'> & { delayMs?: number }): Promise<void> {
    const name = row.jobName as JobName;
    const provider = queueKindOf(name) === 'agent' ? row.queue.slice('agent.'.length) : undefined;
    return this.producer.add(name, row.payload as JobOf<typeof name>, { jobId: row.jobId, provider, ...(row.delayMs ? { delay: row.delayMs } : {}) });
  }

  /**
   * One UPDATE for the batch, committed without waiting for the WAL flush (set_config(...,
   * true) lasts for this statement's own transaction). sent_at only spares the sweeper a
   * resend; a mark lost in a crash means one more add of a job whose deterministic id and
   * idempotent handler make it harmless. Waiting for the disk here would put a second
   * fsync on every orchestrator step.
   *
   * Marks asked for in the same turn of the event loop (concurrent steps) share one UPDATE;
   * each caller still waits until its rows are marked.
   */
  private pendingMarks: number[] = [];
  private marking: Promise<void> | null = null;

  private markSent(ids: number[]): Promise<void> {
    if (!ids.length) return Promise.resolve();
    this.pendingMarks.push(...ids);
    this.marking ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const batch = this.pendingMarks;
      this.pendingMarks = [];
      this.marking = null;
      return this.markSentNow(batch);
    });
    return this.marking;
  }

  private async markSentNow(ids: number[]): Promise<void> {
    await preparedQuery(
      this.ds,
      `WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
       UPDATE outbox SET sent_at = now() FROM async_commit WHERE outbox.id = ANY($1)`,
      [ids],
    );
  }
}
