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
    // Sent together, not one round trip each: one connection keeps them in order anyway.
    await Promise.all(events.map((e) => this.redis.publish(runEventChannel(this.prefix, e.run_id), JSON.stringify(e))));
  }
}
