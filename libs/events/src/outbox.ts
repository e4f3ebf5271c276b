import type { DataSource, EntityManager } from 'typeorm';
import { IsNull, In, LessThan } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { JobProducer } from '@roundtable/queues';
import { OutboxEntity } from '@roundtable/persistence';

export interface OutboxJob {
  runId: string | null;
  queue: string;
  jobName: string;
  jobId: string;
  payload: Record<string, unknown>;
}

/** Writes jobs to send, in the caller's transaction: they exist exactly when the state change does. */
export async function addToOutbox(em: EntityManager, jobs: OutboxJob[]): Promise<number[]> {
  if (!jobs.length) return [];
  const result = await em.insert(
    OutboxEntity,
    jobs.map((j) => ({ ...j, sentAt: null })) as unknown as QueryDeepPartialEntity<OutboxEntity>[],
  );
  return result.identifiers.map((i) => Number(i.id));
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
    const rows = await this.ds.getRepository(OutboxEntity).find({ where: { id: In(ids), sentAt: IsNull() }, order: { id: 'ASC' } });
    return this.send(rows);
  }

  /** Re-sends rows left unsent for longer than `olderThanMs`. */
  async sweep(olderThanMs = 5000, batch = 500): Promise<number> {
    const rows = await this.ds.getRepository(OutboxEntity).find({
      where: { sentAt: IsNull(), createdAt: LessThan(new Date(Date.now() - olderThanMs)) },
      order: { id: 'ASC' },
      take: batch,
    });
    return this.send(rows);
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

  private async send(rows: OutboxEntity[]): Promise<number> {
    for (const row of rows) {
      await this.producer.addRaw(row.queue, row.jobName, row.payload, row.jobId);
      await this.ds.getRepository(OutboxEntity).update({ id: row.id }, { sentAt: new Date() });
    }
    return rows.length;
  }
}
