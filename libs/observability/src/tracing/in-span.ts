import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from './trace-attributes';

/** One tracer for the whole code base; the service is the resource's service.name, not the tracer's name. */
export const tracer = () => trace.getTracer('roundtable');

/**
 * Runs `fn` in a new active span (a child of the active context), ends it when `fn` settles, and
 * on a throw records the exception, marks the span ERROR with `error.type` (the error's `code`
 * when it has one, else its class name) and rethrows. With tracing off the span is the no-op one.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  return tracer().startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      markFailed(span, e);
      throw e;
    } finally {
      span.end();
    }
  });
}

/** ERROR status, `error.type` and the exception event, for a span whose work failed. */
export function markFailed(span: Span, e: unknown, errorType?: string): void {
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as { code?: unknown }).code;
  span.setAttribute(ATTR_ERROR_TYPE, errorType ?? (typeof code === 'string' ? code : err.name));
  span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
}
