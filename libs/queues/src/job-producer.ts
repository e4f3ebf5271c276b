import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobName, JobOf, QueueKind, QUEUE, agentQueueName, jobSchema, queueKindOf } from '@roundtable/contracts';
import { QUEUE_DEFAULTS } from './queue-defaults';

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
 * compile time against the catalogue and at run time against the zod schema.
 */
export class JobProducer {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connection: Redis,
    readonly prefix: string,
  ) {}

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix });
      this.queues.set(name, q);
    }
    return q;
  }

  async add<N extends JobName>(name: N, payload: JobOf<N>, opts: AddOptions): Promise<void> {
    const kind = queueKindOf(name);
    const data = jobSchema(name).parse(payload);
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

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
