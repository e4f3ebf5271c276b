import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { type Pipeline, TEST_REDIS_URL, waitFor } from '@roundtable/testing';

/**
 * Holds a run still in the middle: the replay provider's queue (`agent.replay`) is paused, so
 * the call in flight finishes and the run's next call waits, queued, until `open()`. A test
 * that needs "mid-run" (a reload, a second reader) gets it by construction, not by racing a
 * latency: `heldAt` returns only once the database shows the run running with a call queued
 * and none running, and fails if the run ended first.
 */
export class ProviderGate {
  private readonly redis = new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  private readonly queue: Queue;

  constructor(private readonly pipeline: Pipeline) {
    this.queue = new Queue('agent.replay', { connection: this.redis, prefix: pipeline.prefix });
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

  /** Waits until `runId` stands at the shut gate; its agent_calls rows (call ids, in order) then. */
  async heldAt(runId: string): Promise<string[]> {
    const held = await waitFor(
      `run ${runId} to wait at the paused provider queue (running, a call queued, none running)`,
      async () => {
        const [run] = await this.pipeline.sql<{ status: string }>(`SELECT status FROM runs WHERE id = $1`, [runId]);
        if (run && run.status !== 'running') return `run ${runId} is ${run.status}: it ended before it could be held mid-run`;
        const calls = await this.pipeline.sql<{ status: string }>(`SELECT status FROM agent_calls WHERE run_id = $1`, [runId]);
        return calls.some((c) => c.status === 'queued') && !calls.some((c) => c.status === 'running') ? 'held' : undefined;
      },
      60_000,
      100,
    );
    if (held !== 'held') throw new Error(held);
    const rows = await this.pipeline.sql<{ id: string }>(`SELECT id FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [runId]);
    return rows.map((r) => r.id);
  }
}
