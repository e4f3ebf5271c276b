import type { Cluster, Redis } from 'ioredis';
import type { LiveRunEvent, RunEventEnvelope } from '@roundtable/contracts';

export function runEventChannel(prefix: string, runId: string): string {
  return `${prefix}:run-events:${runId}`;
}

/**
 * Fan-out after commit. Pub/sub is lossy by nature; subscribers replay from Postgres after
 * the last sequence they saw, so a missed message costs latency, never an event.
 */
export class RunEventPublisher {
  constructor(
    private readonly redis: Redis | Cluster,
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

  /**
   * A live-only event (a debate turn's tokens) on the same channel, never committed first:
   * it is in no log, so a subscriber that misses it misses it, and the stored event that
   * follows (the whole turn) is what every follower gets. No sequence: the api's stream gives
   * it the one of the last stored event it sent.
   */
  async publishLiveOnly(event: LiveRunEvent): Promise<void> {
    await this.redis.publish(runEventChannel(this.prefix, event.run_id), JSON.stringify(event));
  }
}
