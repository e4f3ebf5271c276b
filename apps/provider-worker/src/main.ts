import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseServiceEnv } from '@roundtable/contracts';
import { JsonLogger, startTracing } from '@roundtable/observability';
import { runService } from '@roundtable/service';
import { ProviderWorkerEnv } from './provider-worker.env';
import { ProviderWorkerModule } from './provider-worker.module';

runService('provider-worker', async () => {
  const env = parseServiceEnv('provider-worker', ProviderWorkerEnv);
  // Before Nest boots, so every span of the service has its provider (off without OTEL_EXPORTER_OTLP_ENDPOINT).
  await startTracing('provider-worker');
  const logger = new JsonLogger({ service: 'provider-worker', format: env.LOG_FORMAT });
  // Shutdown is Nest's hooks' (runService): SIGTERM closes the queues' workers (calls in flight finish and are recorded) and exits 0.
  return NestFactory.createApplicationContext(ProviderWorkerModule.forRoot(env), { logger, abortOnError: false });
});
