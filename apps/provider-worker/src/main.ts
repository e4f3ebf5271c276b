import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseServiceEnv } from '@roundtable/contracts';
import { runService } from '@roundtable/queues';
import { ProviderWorkerEnv } from './provider-worker.env';
import { ProviderWorkerModule } from './provider-worker.module';

runService('provider-worker', async () => {
  const env = parseServiceEnv('provider-worker', ProviderWorkerEnv);
  const app = await NestFactory.createApplicationContext(ProviderWorkerModule.forRoot(env), { logger: ['error', 'warn', 'log'], abortOnError: false });
  app.enableShutdownHooks();
  return app;
});
