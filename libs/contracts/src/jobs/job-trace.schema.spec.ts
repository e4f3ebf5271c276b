import { JOBS, jobNamesOf, jobSchema, QueueKind } from './job-catalogue';
import { JobTrace } from './job-trace.schema';

const TRACEPARENT = `00-${'4bf92f3577b34da6a3ce929d0e0e4736'}-${'00f067aa0ba902b7'}-01`;

describe('the trace context every job may carry', () => {
  const names = (Object.keys(JOBS) as QueueKind[]).flatMap((k) => jobNamesOf(k));

  it.each(names)('%s keeps `trace` through its schema (a stripped one would cut the run into traces)', (name) => {
    const schema = jobSchema(name) as unknown as { shape: Record<string, unknown> };
    expect(Object.keys(schema.shape)).toContain('trace');
    expect((schema.shape.trace as { unwrap: () => unknown }).unwrap()).toBe(JobTrace);
  });

  it('takes a W3C traceparent (with or without tracestate) and refuses anything else', () => {
    expect(JobTrace.safeParse({ traceparent: TRACEPARENT }).success).toBe(true);
    expect(JobTrace.safeParse({ traceparent: TRACEPARENT, tracestate: 'vendor=1' }).success).toBe(true);
    for (const bad of ['', 'nope', TRACEPARENT.toUpperCase(), TRACEPARENT.slice(0, -1)]) {
      expect(JobTrace.safeParse({ traceparent: bad }).success).toBe(false);
    }
  });
});
