import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseServiceEnv } from '@roundtable/contracts';
import { JsonLogger } from '@roundtable/observability';
import { runService } from '@roundtable/queues';
import { ProviderWorkerEnv } from './provider-worker.env';
import { ProviderWorkerModule } from './provider-worker.module';

runService('provider-worker', async () => {
  const env = parseServiceEnv('provider-worker', ProviderWorkerEnv);
  const logger = new JsonLogger({ service: 'provider-worker', format: env.LOG_FORMAT });
  // Shutdown is Nest's hooks' (runService): SIGTERM closes the queues' workers (calls in flight finish and are recorded) and exits 0.
  return NestFactory.createApplicationContext(ProviderWorkerModule.forRoot(env), { logger, abortOnError: false });
});
