import { context, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * The trace context a job carries from the span that enqueued it to the span that handles it:
 * the W3C `traceparent` (and `tracestate` when there is one), as the job catalogue's `trace`
 * field holds it (libs/contracts, JobTrace).
 *
 * Here, with the producer and JobRoutes that use it, rather than in libs/observability: it is
 * how a job is sent and handled, and needs only the OpenTelemetry API (a no-op until a service's
 * startTracing() registers a provider), so the queue plumbing imports no library but the
 * contracts (README.md, library boundaries).
 */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

// Used directly rather than through the global propagator: a job's trace context is W3C trace
// context whatever else a service registers (and with tracing off nothing is registered at all).
const propagator = new W3CTraceContextPropagator();
const setter = { set: (c: Record<string, string>, k: string, v: string) => void (c[k] = v) };
const getter = {
  get: (c: Record<string, string>, k: string) => c[k],
  keys: (c: Record<string, string>) => Object.keys(c),
};

/**
 * The active span's context as a carrier, or undefined when there is no sampled span (tracing
 * off: the no-op tracer makes none, so jobs carry nothing and cost nothing).
 */
export function currentTraceCarrier(ctx: Context = context.active()): TraceCarrier | undefined {
  if (!trace.getSpanContext(ctx)) return undefined;
  const c: Record<string, string> = {};
  propagator.inject(ctx, c, setter);
  if (!c.traceparent) return undefined;
  return c.tracestate ? { traceparent: c.traceparent, tracestate: c.tracestate } : { traceparent: c.traceparent };
}

/** The context a carrier names, as the parent of the spans started in it; ROOT_CONTEXT without one. */
export function contextFromCarrier(carrier: TraceCarrier | undefined): Context {
  if (!carrier?.traceparent) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { ...carrier } as Record<string, string>, getter);
}

/**
 * Runs `fn` with the carrier's context active, so each span it starts is a child of the span
 * that enqueued the job. A job without one (sent with tracing off, or resent from its row by the
 * reconciler from before tracing) runs in the root context and starts a trace of its own.
 */
export function withCarriedContext<T>(carrier: TraceCarrier | undefined, fn: () => T): T {
  return context.with(contextFromCarrier(carrier), fn);
}

/** The payload with the active trace context in `trace`, unless it already carries one. */
export function withTraceCarrier<P extends object>(payload: P): P & { trace?: TraceCarrier } {
  if ((payload as { trace?: unknown }).trace) return payload;
  const carrier = currentTraceCarrier();
  return carrier ? { ...payload, trace: carrier } : payload;
}
