import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseServiceEnv } from '@roundtable/contracts';
import { runService } from '@roundtable/queues';
import { OrchestratorEnv } from './orchestrator.env';
import { OrchestratorModule } from './orchestrator.module';

runService('orchestrator', async () => {
  const env = parseServiceEnv('orchestrator', OrchestratorEnv);
  const app = await NestFactory.createApplicationContext(OrchestratorModule.forRoot(env), { logger: ['error', 'warn', 'log'], abortOnError: false });
  app.enableShutdownHooks();
  return app;
});
