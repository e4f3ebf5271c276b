import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { parseServiceEnv, readOperatorPolicy } from '@roundtable/contracts';
import { JsonLogger, startTracing } from '@roundtable/observability';
import { runService } from '@roundtable/service';
import { ApiEnv } from './api.env';
import { DEFAULT_TEAM } from './api-tokens';
import { createApiApp } from './create-api-app';
import { isLoopbackHost, listenHost } from './listen-host';

runService('api', async () => {
  const env = parseServiceEnv('api', ApiEnv);
  // Before Nest boots, so every span of the service has its provider (off without OTEL_EXPORTER_OTLP_ENDPOINT).
  await startTracing('api');
  // Read once: a changed policy file takes effect at the next start, the same moment for every replica.
  const { policy, source } = readOperatorPolicy();
  const logger = new JsonLogger({ service: 'api', format: env.LOG_FORMAT });
  const host = listenHost(env);
  const app = await createApiApp(env, { logger, policy });
  await app.listen(env.PORT, host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const log = new Logger('api');
  log.log(`policy: ${source ?? 'defaults (no ROUNDTABLE_POLICY: no repo or cassette roots, keys only to their official URLs, the docker sandbox only)'}`);
  if (env.API_TOKENS.length === 0 && !isLoopbackHost(host)) {
    log.warn(
      `API_OPEN=true and API_TOKENS is not set: this API is OPEN on ${host}. Anyone who can reach it can submit runs (spending your provider budget), read every prompt and reply, and use Bull Board. Set API_TOKENS=name:token:write[,name:token:read] (a token: openssl rand -hex 24) and drop API_OPEN.`,
    );
  } else if (env.API_TOKENS.length === 0) {
    log.warn(
      `API_TOKENS is not set: this API takes no token, so it listens on ${host} only (this machine). Any local user or process can submit runs and read every prompt and reply. Set API_TOKENS=name:token:write[,name:token:read] before exposing it.`,
    );
  } else {
    const roles = env.API_TOKENS.map((t) => `${t.name} (${t.role}, team ${t.team})`).join(', ');
    log.log(`bearer tokens required on every route but /healthz and /readyz; tokens: ${roles}`);
    log.log(`teams: a token sees and acts on its own team's runs, ideas, experiments and evals only (another team's answer 404); admin sees every team; Bull Board needs ops or admin`);
    if (env.API_TOKENS.some((t) => t.team === DEFAULT_TEAM)) log.log(`API_TOKENS: a token given as name:token:role (no :team) belongs to the team ${DEFAULT_TEAM}`);
  }
  const shown = host.includes(':') ? `[${host}]` : host;
  log.log(
    `listening on http://${shown}:${port} (Bull Board at /admin/queues${env.API_TOKENS.length ? ' for ops and admin' : ''}, docs at /docs, metrics at /metrics, queue prefix ${env.QUEUE_PREFIX}, ${env.RATE_LIMIT_WRITES_PER_MIN || 'unlimited'} writes/min per token, CORS ${env.CORS_ORIGINS.length ? env.CORS_ORIGINS.join(' ') : 'off'})`,
  );
  return app;
});
