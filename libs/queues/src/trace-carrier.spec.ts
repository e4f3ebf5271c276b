import { context, trace } from '@opentelemetry/api';
import { currentTraceCarrier, withCarriedContext, withTraceCarrier } from './trace-carrier';
import { inMemoryTracing, inTestSpan } from '@roundtable/testing';

describe('the trace context a job carries', () => {
  describe('with tracing off (no provider registered)', () => {
    it('carries nothing, and leaves the payload as it was', async () => {
      expect.assertions(2);
      const payload = { runId: 'run_1' };
      await inTestSpan('no-op', async () => {
        expect(currentTraceCarrier()).toBeUndefined();
        expect(withTraceCarrier(payload)).toBe(payload);
      });
    });
  });

  describe('with a provider', () => {
    let tracing: ReturnType<typeof inMemoryTracing>;
    beforeEach(() => (tracing = inMemoryTracing()));
    afterEach(() => tracing.stop());

    it('puts the active span in a W3C traceparent, and a span started in the carried context is its child', async () => {
      expect.assertions(5);
      const sent = await inTestSpan('sender', async (span) => {
        const payload = withTraceCarrier({ runId: 'run_1' });
        const { traceId, spanId } = span.spanContext();
        expect(payload.trace?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
        return payload;
      });
      // The handler runs later, elsewhere: nothing of the sender's context is active here.
      expect(trace.getSpan(context.active())).toBeUndefined();
      await withCarriedContext(sent.trace, () => inTestSpan('handler', async () => undefined));

      const [sender, handler] = tracing.exporter.getFinishedSpans();
      expect(handler.name).toBe('handler');
      expect(handler.spanContext().traceId).toBe(sender.spanContext().traceId);
      expect(handler.parentSpanContext?.spanId).toBe(sender.spanContext().spanId);
    });

    it('keeps a payload that already carries a context (an outbox row written by another span)', async () => {
      expect.assertions(1);
      const carried = { runId: 'run_1', trace: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` } };
      await inTestSpan('resender', async () => expect(withTraceCarrier(carried)).toBe(carried));
    });

    it('carries nothing outside a span, and a job without a context starts a trace of its own', async () => {
      expect(withTraceCarrier({ runId: 'run_1' })).toEqual({ runId: 'run_1' });
      await withCarriedContext(undefined, async () => trace.getTracer('roundtable-test').startSpan('root').end());
      expect(tracing.exporter.getFinishedSpans()[0].parentSpanContext).toBeUndefined();
    });
  });
});
