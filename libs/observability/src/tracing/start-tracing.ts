import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** What a started provider leaves to do at the end: flush the spans still batched, then stop. */
export interface TraceExport {
  shutdown(): Promise<void>;
}

let started: TraceExport | null = null;

/** Whether traces are exported: an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT, or the traces-only one) and the SDK is not disabled. */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The endpoint variables, checked at start: a typo is one clear line, not spans silently lost. */
function checkEndpoints(env: NodeJS.ProcessEnv): void {
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const) {
    const value = env[name]?.trim();
    if (!value) continue;
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new Error(`${name}=${JSON.stringify(value)} is not an http(s) URL: set it to the collector's OTLP/HTTP base, e.g. http://localhost:4318, or unset it to turn tracing off`);
    }
  }
}

/**
 * Starts this process's tracer provider, in main.ts before Nest boots; a second call is a no-op.
 *
 * Off (no endpoint set): nothing is loaded or registered, the API's no-op tracer stays, spans cost
 * a function call and jobs carry no trace context. On: a NodeTracerProvider (registered with the
 * AsyncLocalStorage context manager, so a span is active across awaits) whose resource's
 * service.name is `service`, and a BatchSpanProcessor over the OTLP/HTTP exporter. That exporter
 * sends JSON (`@opentelemetry/exporter-trace-otlp-http` is the http/json one; protobuf is another
 * package), and reads the standard variables itself: OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces`
 * appended), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is), OTEL_EXPORTER_OTLP_HEADERS (a
 * Langfuse or Phoenix key), and the batch's OTEL_BSP_* settings. TraceExportLifecycle flushes it
 * on the service's shutdown.
 */
export async function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): Promise<TraceExport | null> {
  if (started) return started;
  if (!tracingEnabled(env)) return null;
  checkEndpoints(env);
  // Loaded only when on: a service without an endpoint never loads the SDK.
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { defaultResource, resourceFromAttributes }, { ATTR_SERVICE_NAME }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const processor: SpanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: service })),
    spanProcessors: [processor],
  });
  provider.register();
  started = {
    async shutdown() {
      started = null;
      await provider.shutdown();
    },
  };
  return started;
}

/** Flushes and stops the provider startTracing() started; nothing to do when tracing is off. */
export async function shutdownTracing(): Promise<void> {
  await started?.shutdown();
}
