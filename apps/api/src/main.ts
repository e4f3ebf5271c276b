import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { parseServiceEnv } from '@roundtable/contracts';
import { JsonLogger } from '@roundtable/observability';
import { runService } from '@roundtable/queues';
import { ApiEnv } from './api.env';
import { createApiApp } from './create-api-app';

runService('api', async () => {
  const env = parseServiceEnv('api', ApiEnv);
  const logger = new JsonLogger({ service: 'api', format: env.LOG_FORMAT });
  const app = await createApiApp(env, { logger });
  await app.listen(env.PORT);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const log = new Logger('api');
  if (env.API_TOKENS.length === 0) {
    log.warn(
      'API_TOKENS is not set: this API is OPEN. Anyone who can reach it can submit runs (spending your provider budget), read every prompt and reply, and use Bull Board. Set API_TOKENS=name:token:write[,name:token:read] before exposing it beyond localhost.',
    );
  } else {
    const roles = env.API_TOKENS.map((t) => `${t.name} (${t.role})`).join(', ');
    log.log(`bearer tokens required on every route but /healthz and /readyz; tokens: ${roles}`);
  }
  log.log(
    `listening on http://localhost:${port} (Bull Board at /admin/queues, docs at /docs, metrics at /metrics, queue prefix ${env.QUEUE_PREFIX}, ${env.RATE_LIMIT_WRITES_PER_MIN || 'unlimited'} writes/min per token, CORS ${env.CORS_ORIGINS.length ? env.CORS_ORIGINS.join(' ') : 'off'})`,
  );
  return app;
});
