import { trace, type Span } from '@opentelemetry/api';

/**
 * For specs of libraries below observability (queues: the trace context a job carries): runs `fn`
 * in a new active span and ends it when `fn` settles, as observability's inSpan() does, so such
 * a spec can make the spans it checks without importing a library its own may not (README.md,
 * library boundaries). With no provider registered the span is the no-op one.
 */
export function inTestSpan<T>(name: string, fn: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer('roundtable-test').startActiveSpan(name, async (span) => {
    try {
      return await fn(span);
    } finally {
      span.end();
    }
  });
}
