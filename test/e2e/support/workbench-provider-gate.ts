import { queuePrefix } from '@roundtable/queues';
import { type Job, Queue } from 'bullmq';
import IORedis from 'ioredis';
import { type Pipeline, TEST_REDIS_URL, waitFor } from '@roundtable/testing';

/**
 * Holds a run still in the middle: the replay provider's queue (`agent.replay`) is paused, so
 * the call in flight finishes and the run's next call waits, queued, until `open()`. A test
 * that needs "mid-run" (a reload, a second reader) gets it by construction, not by racing a
 * latency: `heldAt` returns only once the run stands there (see it), and fails if the run
 * ended first.
 */
export class ProviderGate {
  private readonly redis = new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  private readonly queue: Queue;

  constructor(private readonly pipeline: Pipeline) {
    this.queue = new Queue('agent.replay', { connection: this.redis, prefix: queuePrefix(pipeline.prefix, 'agent.replay') });
  }

  async close(): Promise<void> {
    await this.open();
    await this.queue.close();
    this.redis.disconnect();
  }

  /** Stops the provider-worker taking calls (the ones it holds it finishes). */
  shut(): Promise<void> {
    return this.queue.pause();
  }

  /** Shuts the gate once `runId` has `completed` calls completed. */
  async shutAfter(runId: string, completed: number): Promise<void> {
    await waitFor(
      `run ${runId} to complete ${completed} calls`,
      async () => {
        const [c] = await this.pipeline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM agent_calls WHERE run_id = $1 AND status = 'completed'`, [runId]);
        return c.n >= completed ? true : undefined;
      },
      120_000,
      50,
    );
    await this.shut();
  }

  open(): Promise<void> {
    return this.queue.resume();
  }

  /**
   * Waits until `runId` stands at the shut gate: running, none of its calls active at the
   * provider-worker or `running` in the database, and its next call's job waiting in the paused
   * queue (a row that says `queued` is not enough: its job may already be in a worker's hands).
   * Returns its agent_calls rows then (call ids, in order).
   */
  async heldAt(runId: string): Promise<string[]> {
    const held = await waitFor(
      `run ${runId} to wait at the paused provider queue`,
      async () => {
        const [run] = await this.pipeline.sql<{ status: string }>(`SELECT status FROM runs WHERE id = $1`, [runId]);
        if (run && run.status !== 'running') return `run ${runId} is ${run.status}: it ended before it could be held mid-run`;
        const ofRun = (jobs: Job[]) => jobs.filter((j) => j?.data?.runId === runId);
        if (ofRun(await this.queue.getJobs(['active'])).length) return undefined;
        const waiting = ofRun(await this.queue.getJobs(['waiting', 'paused', 'prioritized']));
        const calls = await this.pipeline.sql<{ id: string; status: string }>(`SELECT id, status FROM agent_calls WHERE run_id = $1`, [runId]);
        const queued = new Set(calls.filter((c) => c.status === 'queued').map((c) => c.id));
        const stands = waiting.some((j) => queued.has(j.data.callId)) && !calls.some((c) => c.status === 'running');
        return stands ? 'held' : undefined;
      },
      60_000,
      100,
    );
    if (held !== 'held') throw new Error(held);
    const rows = await this.pipeline.sql<{ id: string }>(`SELECT id FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [runId]);
    return rows.map((r) => r.id);
  }
}
