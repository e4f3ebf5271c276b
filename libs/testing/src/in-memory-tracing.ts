import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * For unit tests: a tracer provider that keeps its spans in memory, registered as startTracing()
 * registers the real one (NodeTracerProvider: the AsyncLocalStorage context manager).
 */
export function inMemoryTracing(): { exporter: InMemorySpanExporter; stop: () => Promise<void> } {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  return {
    exporter,
    stop: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
