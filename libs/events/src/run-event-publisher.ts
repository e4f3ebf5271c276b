import type { Redis } from 'ioredis';
import type { RunEventEnvelope } from '@roundtable/contracts';

export function runEventChannel(prefix: string, runId: string): string {
  return `${prefix}:run-events:${runId}`;
}

/**
 * Fan-out after commit. Pub/sub is lossy by nature; subscribers replay from Postgres after
 * the last sequence they saw, so a missed message costs latency, never an event.
 */
export class RunEventPublisher {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async publish(events: RunEventEnvelope[]): Promise<void> {
    if (!events.length) return;
    // One pipeline: a step's events leave in one socket write and one round trip, in order.
    const pipeline = this.redis.pipeline();
    for (const e of events) pipeline.publish(runEventChannel(this.prefix, e.run_id), JSON.stringify(e));
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([err]) => err);
    if (failed) throw failed[0];
  }
}
