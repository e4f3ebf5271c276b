import { trace } from '@opentelemetry/api';
import { startTracing, tracingEnabled } from './start-tracing';

describe('startTracing', () => {
  it('is off without an OTLP endpoint, or with OTEL_SDK_DISABLED=true: nothing registered, the tracer stays the no-op one', async () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://localhost:4318/v1/traces' })).toBe(true);

    await expect(startTracing('api', {})).resolves.toBeNull();
    const span = trace.getTracer('t').startSpan('s');
    expect(span.isRecording()).toBe(false);
    span.end();
  });

  it('refuses an endpoint that is not an http(s) URL, naming the variable and the fix', async () => {
    await expect(startTracing('api', { OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' })).rejects.toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT="localhost:4318" is not an http\(s\) URL: set it to the collector's OTLP\/HTTP base, e\.g\. http:\/\/localhost:4318/,
    );
    await expect(startTracing('api', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).rejects.toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
  });
});
