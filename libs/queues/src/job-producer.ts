import { Queue } from 'bullmq';
import { JobName, JobOf, QueueKind, QUEUE, agentQueueName, jobSchema, queueKindOf } from '@roundtable/contracts';
import { QUEUE_DEFAULTS } from './queue-defaults';
import { queuePrefix } from './queue-prefix';
import type { RedisClient } from './redis-connection';
import { withTraceCarrier } from './trace-carrier';

export interface AddOptions {
  /** Deterministic id: a repeated add with the same id is a no-op. */
  jobId: string;
  /** For agent jobs: which provider's queue. */
  provider?: string;
  delay?: number;
}

/** The concrete BullMQ queue name for a job (agent jobs go to `agent.<provider>`). */
export function queueNameFor(kind: QueueKind, provider?: string): string {
  if (kind === 'agent') {
    if (!provider) throw new Error('an agent job needs the provider whose queue it goes to');
    return agentQueueName(provider);
  }
  return QUEUE[kind];
}

/**
 * The typed producer: `add('agent.done', { runId, callId }, { jobId })` is checked at
 * compile time against the catalogue and at run time against the zod schema. The active span's
 * trace context goes in the payload's `trace` (unless it carries one, as an outbox row does), so
 * the span that handles the job is a child of the one that sent it; with tracing off, nothing.
 *
 * A service's fixed queues are the ones @nestjs/bullmq registered (`registered`, closed by Nest);
 * an `agent.<provider>` queue, or a queue a test producer was not given, is opened here on first
 * use on `connection` and closed by close().
 */
export class JobProducer {
  private readonly registered = new Map<string, Queue>();
  private readonly opened = new Map<string, Queue>();

  constructor(
    private readonly connection: RedisClient,
    readonly prefix: string,
    registered: Queue[] = [],
  ) {
    for (const q of registered) {
      if (q.opts.prefix !== queuePrefix(prefix, q.name)) throw new Error(`queue ${q.name} is registered under prefix ${q.opts.prefix}, the producer's is ${prefix}: give both QUEUE_PREFIX`);
      this.registered.set(q.name, q);
    }
  }

  queue(name: string): Queue {
    let q = this.registered.get(name) ?? this.opened.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: queuePrefix(this.prefix, name) });
      this.opened.set(name, q);
    }
    return q;
  }

  async add<N extends JobName>(name: N, payload: JobOf<N>, opts: AddOptions): Promise<void> {
    const kind = queueKindOf(name);
    const data = jobSchema(name).parse(withTraceCarrier(payload));
    await this.queue(queueNameFor(kind, opts.provider)).add(name, data, {
      ...QUEUE_DEFAULTS[kind].job,
      jobId: opts.jobId,
      delay: opts.delay,
    });
  }

  /** Enqueue by names read back from the outbox (already validated when written). */
  async addRaw(queueName: string, jobName: string, payload: unknown, jobIdValue: string): Promise<void> {
    const kind = queueKindOf(jobName as JobName);
    await this.queue(queueName).add(jobName, payload, { ...QUEUE_DEFAULTS[kind].job, jobId: jobIdValue });
  }

  /** Closes the queues it opened (the registered ones are Nest's to close). */
  async close(): Promise<void> {
    await Promise.all([...this.opened.values()].map((q) => q.close()));
    this.opened.clear();
  }
}
