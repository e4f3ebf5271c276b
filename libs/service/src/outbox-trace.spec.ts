import { inSpan } from '@roundtable/observability';
import { inMemoryTracing } from '@roundtable/testing';
import { checkedOutboxJob, outboxJob } from './outbox';

describe('an outbox row carries the trace context of the span that wrote it', () => {
  let tracing: ReturnType<typeof inMemoryTracing>;
  beforeEach(() => (tracing = inMemoryTracing()));
  afterEach(() => tracing.stop());

  it('the payload gets the writing span as `trace` when the row is checked (in the step transaction), not when it is sent', async () => {
    const job = outboxJob('run.start', { runId: 'run_1' }, { runId: 'run_1', jobId: 'j__run_1__start' });
    const checked = await inSpan('POST /v1/runs', {}, async (span) => {
      const row = checkedOutboxJob(job);
      expect((row.payload as { trace?: { traceparent: string } }).trace?.traceparent).toContain(span.spanContext().spanId);
      return row;
    });
    // Sent later (after the commit, or by the sweeper): the row's context is kept as written.
    await inSpan('sweeper', {}, async () => expect(checkedOutboxJob(checked).payload).toEqual(checked.payload));
  });

  it('without a span the payload is as given', () => {
    expect(checkedOutboxJob(outboxJob('run.start', { runId: 'run_1' }, { runId: 'run_1', jobId: 'j' })).payload).toEqual({ runId: 'run_1' });
  });
});
