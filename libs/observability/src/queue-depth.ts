import { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { within } from './readiness';
import { QUEUE_STATES, type QueueDepthSource } from './roundtable-metrics';

export interface QueueDepthOptions {
  /** Queues that always exist (orchestrator, workspace, tests). */
  fixed: string[];
  /** Queues that appear as runs use new providers (`agent.<provider>`); asked at most every `discoveryMs`. */
  discover: () => Promise<string[]>;
  discoveryMs?: number;
  /** A scrape must answer even when Redis does not. */
  timeoutMs?: number;
  onError?: (e: Error) => void;
}

/**
 * Reads every known queue's job counts from Redis when Prometheus scrapes: depth is a fact held in
 * Redis, so any replica of any service reports the same numbers and none has to keep them. Discovery
 * of the provider queues is cached, because it asks Postgres.
 */
export class QueueDepth {
  private readonly queues = new Map<string, Queue>();
  private discovered: string[] = [];
  private discoveredAt = 0;

  constructor(
    private readonly connection: Redis | Cluster,
    /** A queue's BullMQ prefix (the queues lib's queuePrefix: the deployment's prefix and the queue's hash tag). */
    private readonly prefixOf: (queue: string) => string,
    private readonly opts: QueueDepthOptions,
  ) {}

  readonly source: QueueDepthSource = async (set) => {
    const timeoutMs = this.opts.timeoutMs ?? 2000;
    await this.refreshDiscovered(timeoutMs);
    const names = [...new Set([...this.opts.fixed, ...this.discovered])];
    await Promise.all(
      names.map(async (name) => {
        try {
          const counts = await within(this.queue(name).getJobCounts(...QUEUE_STATES), timeoutMs);
          for (const state of QUEUE_STATES) set(name, state, counts[state] ?? 0);
        } catch (e) {
          // A queue without numbers is absent from the scrape, never reported as empty.
          this.opts.onError?.(new Error(`queue ${name}: ${(e as Error).message}`));
        }
      }),
    );
  };

  async close(): Promise<void> {
    // The connection is shared: closing a Queue leaves it open for its owner to end.
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }

  private async refreshDiscovered(timeoutMs: number): Promise<void> {
    if (Date.now() - this.discoveredAt < (this.opts.discoveryMs ?? 30_000)) return;
    try {
      this.discovered = await within(this.opts.discover(), timeoutMs);
      this.discoveredAt = Date.now();
    } catch (e) {
      this.opts.onError?.(new Error(`queue discovery: ${(e as Error).message}`));
    }
  }

  private queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefixOf(name) });
      this.queues.set(name, q);
    }
    return q;
  }
}
