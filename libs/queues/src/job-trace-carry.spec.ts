import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobTrace } from '@roundtable/contracts';
import { inMemoryTracing, inTestSpan } from '@roundtable/testing';
import { queuePrefix } from './queue-prefix';
import { JobProducer } from './job-producer';
import { JobRoutes } from './job-routes';

/** A registered queue that keeps what it was given instead of sending it to Redis. */
function recordingQueue(name: string, prefix: string) {
  const added: { name: string; data: Record<string, unknown> }[] = [];
  const queue = { name, opts: { prefix: queuePrefix(prefix, name) }, add: async (n: string, data: Record<string, unknown>) => void added.push({ name: n, data }) };
  return { queue: queue as unknown as Queue, added };
}

describe('a job carries the trace context from the producer to its handler', () => {
  let tracing: ReturnType<typeof inMemoryTracing>;
  beforeEach(() => (tracing = inMemoryTracing()));
  afterEach(() => tracing.stop());

  it('the producer puts the sending span in `trace`, and JobRoutes runs the handler as its child', async () => {
    const tests = recordingQueue('tests', 'p');
    const producer = new JobProducer({} as Redis, 'p', [tests.queue]);
    await inTestSpan('step', () => producer.add('tests.run', { runId: 'run_1', opId: 'op_1', implementationId: 'impl_1' }, { jobId: 'j__op_1' }));

    const data = tests.added[0].data;
    expect(JobTrace.safeParse(data.trace).success).toBe(true);

    const routes = new JobRoutes('tests', 'tests', { 'tests.run': () => inTestSpan('tests op', async () => undefined), 'experiment.run': async () => undefined, 'eval.score': async () => undefined });
    await routes.run({ name: 'tests.run', data } as unknown as Job);

    const [step, op] = tracing.exporter.getFinishedSpans();
    expect(op.spanContext().traceId).toBe(step.spanContext().traceId);
    expect(op.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
  });

  it('a job sent outside any span carries no context, and its handler starts a trace of its own', async () => {
    const tests = recordingQueue('tests', 'p');
    await new JobProducer({} as Redis, 'p', [tests.queue]).add('tests.run', { runId: 'run_1', opId: 'op_1', implementationId: 'impl_1' }, { jobId: 'j__op_1' });
    expect(tests.added[0].data).toEqual({ runId: 'run_1', opId: 'op_1', implementationId: 'impl_1' });

    const routes = new JobRoutes('tests', 'tests', { 'tests.run': () => inTestSpan('tests op', async () => undefined), 'experiment.run': async () => undefined, 'eval.score': async () => undefined });
    await routes.run({ name: 'tests.run', data: tests.added[0].data } as unknown as Job);
    expect(tracing.exporter.getFinishedSpans()[0].parentSpanContext).toBeUndefined();
  });

  it('a malformed traceparent is refused by the catalogue, naming the field', async () => {
    const tests = recordingQueue('tests', 'p');
    const producer = new JobProducer({} as Redis, 'p', [tests.queue]);
    await expect(
      producer.add('tests.run', { runId: 'run_1', opId: 'op_1', implementationId: 'impl_1', trace: { traceparent: 'nope' } }, { jobId: 'j__op_1' }),
    ).rejects.toThrow(/trace.*traceparent|W3C traceparent/s);
  });
});
