import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseServiceEnv } from '@roundtable/contracts';
import { runService } from '@roundtable/queues';
import { TestRunnerEnv } from './test-runner.env';
import { TestRunnerModule } from './test-runner.module';

runService('test-runner', async () => {
  const env = parseServiceEnv('test-runner', TestRunnerEnv);
  const app = await NestFactory.createApplicationContext(TestRunnerModule.forRoot(env), { logger: ['error', 'warn', 'log'], abortOnError: false });
  app.enableShutdownHooks();
  return app;
});
