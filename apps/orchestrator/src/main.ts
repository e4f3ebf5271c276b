import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseServiceEnv, readOperatorPolicy } from '@roundtable/contracts';
import { JsonLogger, startTracing } from '@roundtable/observability';
import { boundHeapGrowth, runService } from '@roundtable/service';
import { OrchestratorEnv } from './orchestrator.env';
import { OrchestratorModule } from './orchestrator.module';

/**
 * The old generation grows by this much over what a full collection kept (boundHeapGrowth),
 * not by the 3 × V8 chose under load: the orchestrator's live heap is ~40 MB whatever the runs
 * in flight, and with 500 of them its resident memory peaked at 171–178 MB instead of 275–350 MB,
 * mostly garbage, for 3–5 × the full collections (+3 % CPU per call, back to back). 30 % held it
 * to 164–168 MB for 1.6 × those of 50 %; 100 % let it reach 197 MB (bench/README.md, issue 27).
 * `node --heap-growing-percent=N dist/apps/orchestrator/main.js` overrides it (node refuses the
 * flag in NODE_OPTIONS).
 */
const HEAP_GROWING_PERCENT = 50;

runService('orchestrator', async () => {
  const heapFlag = boundHeapGrowth(HEAP_GROWING_PERCENT);
  const env = parseServiceEnv('orchestrator', OrchestratorEnv);
  // Before Nest boots, so every span of the service has its provider (off without OTEL_EXPORTER_OTLP_ENDPOINT).
  await startTracing('orchestrator');
  // Read once, before anything is served: a malformed policy stops the start with its lines named.
  // The orchestrator enforces its caps across runs (budgets.teams, budgets.projects) in every step.
  const { policy, source } = readOperatorPolicy(process.env);
  const logger = new JsonLogger({ service: 'orchestrator', format: env.LOG_FORMAT });
  // Shutdown is Nest's hooks' (runService): SIGTERM closes the worker (running steps finish) and exits 0.
  const app = await NestFactory.createApplicationContext(OrchestratorModule.forRoot(env, policy), { logger, abortOnError: false });
  const capped = [...Object.keys(policy.budgets.teams).map((t) => `team ${t}`), ...Object.keys(policy.budgets.projects).map((p) => `project ${p}`)];
  new Logger('orchestrator').log(`policy: ${source ?? 'defaults (no ROUNDTABLE_POLICY)'}; caps across runs: ${capped.length ? capped.join(', ') : 'none'}`);
  new Logger('orchestrator').log(`heap: ${heapFlag ?? "node's own --heap-growing-percent, from its command line"}`);
  return app;
});
