import { Job, UnrecoverableError } from 'bullmq';
import { JobName, JobOf, JobTrace, QueueKind, jobNamesOf, jobSchema } from '@roundtable/contracts';
import { QUEUE_DEFAULTS } from './queue-defaults';
import { classifyFailure } from './job-failure';
import { withCarriedContext } from './trace-carrier';

/** `token` is the job's lock token, for handlers that move their own job (moveToDelayed). */
export type HandlerTable = Partial<{ [N in JobName]: (payload: JobOf<N>, job: Job, token?: string) => Promise<void> }>;

/**
 * One queue's routing: job name → handler, in one table (house style 3). Built once, when the
 * processor is constructed: a table missing a handler for any job its queue kind can carry
 * throws there, so the service refuses to start (house style 6) rather than failing jobs one
 * by one in production.
 */
export class JobRoutes {
  constructor(
    readonly kind: QueueKind,
    readonly queueName: string,
    private readonly handlers: HandlerTable,
  ) {
    const missing = jobNamesOf(kind).filter((n) => !handlers[n]);
    if (missing.length) {
      throw new Error(`the processor of queue ${queueName} has no handler for: ${missing.join(', ')} (add each to its handler table)`);
    }
  }

  /**
   * One delivery: the payload parsed against the catalogue, its handler run in the trace context
   * the job carries (so the handler's spans are children of the span that enqueued it), its error
   * classified (job-failure.ts).
   */
  async run(job: Job, token?: string): Promise<void> {
    const handler = this.handlers[job.name as JobName] as ((p: unknown, j: Job, t?: string) => Promise<void>) | undefined;
    if (!handler) throw new UnrecoverableError(`no handler for job ${job.name} on ${this.queueName}`);
    const parsed = jobSchema(job.name as JobName).safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad payload for ${job.name}: ${parsed.error.message}`);
    try {
      const carried = (parsed.data as { trace?: JobTrace }).trace;
      await withCarriedContext(carried, () => handler(parsed.data, job, token));
    } catch (e) {
      throw await classifyFailure(e, job, token, QUEUE_DEFAULTS[this.kind].infra);
    }
  }
}
