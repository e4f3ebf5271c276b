import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseServiceEnv } from '@roundtable/contracts';
import { JsonLogger } from '@roundtable/observability';
import { runService } from '@roundtable/queues';
import { TestRunnerEnv } from './test-runner.env';
import { TestRunnerModule } from './test-runner.module';

runService('test-runner', async () => {
  const env = parseServiceEnv('test-runner', TestRunnerEnv);
  const logger = new JsonLogger({ service: 'test-runner', format: env.LOG_FORMAT });
  // Shutdown is runService's: SIGTERM closes the workers (a running test run finishes) and exits 0.
  return NestFactory.createApplicationContext(TestRunnerModule.forRoot(env), { logger, abortOnError: false });
});
