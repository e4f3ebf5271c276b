import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseServiceEnv, readOperatorPolicy } from '@roundtable/contracts';
import { JsonLogger, startTracing } from '@roundtable/observability';
import { runService } from '@roundtable/service';
import { TestRunnerEnv } from './test-runner.env';
import { TestRunnerModule } from './test-runner.module';

runService('test-runner', async () => {
  const env = parseServiceEnv('test-runner', TestRunnerEnv);
  // Before Nest boots, so every span of the service has its provider (off without OTEL_EXPORTER_OTLP_ENDPOINT).
  await startTracing('test-runner');
  // Read once, before anything is served: a malformed policy stops the start with its lines named.
  const policy = readOperatorPolicy(process.env);
  const logger = new JsonLogger({ service: 'test-runner', format: env.LOG_FORMAT });
  // Shutdown is Nest's hooks' (runService): SIGTERM closes the workers (a running test run finishes) and exits 0.
  return NestFactory.createApplicationContext(TestRunnerModule.forRoot(env, policy), { logger, abortOnError: false });
});
