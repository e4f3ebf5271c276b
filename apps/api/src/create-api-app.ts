import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import type { OperatorPolicy } from '@roundtable/contracts';
import { INFRA } from '@roundtable/service';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ApiExceptionFilter } from './api-exception.filter';
import type { ApiEnv } from './api.env';
import { TokenBook } from './api-tokens';
import { ApiModule } from './api.module';
import { bearerAuth } from './bearer-auth.middleware';
import { registerBodyParsers } from './body-parsers';
import { docsHandler, DOCS_PATH } from './openapi/docs.handler';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';
import { teamDoor } from './team-door.middleware';
import { writeRateLimit } from './write-rate-limit.middleware';
import { webRootOf } from './web-root';
import { workbenchHandler } from './workbench.handler';

/** Headers a browser client sends and may read, when CORS_ORIGINS lets it call at all. */
const CORS_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Last-Event-ID', 'Idempotency-Key'];
const CORS_EXPOSED_HEADERS = ['Location', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'X-Next-Cursor', 'Link'];

/**
 * Builds the api application without listening, so main.ts and the integration tests run the
 * same wiring. `policy` is the operator's (main.ts reads ROUNDTABLE_POLICY once). abortOnError is
 * off: a failed start (unmigrated database, Redis down) must reach runService as an error, not
 * abort the process from inside Nest.
 *
 * Middleware order is the order a request meets the doors: CORS (answers preflights, which carry
 * no token), the workbench's static files (its page routes and /assets only, GET and HEAD), the
 * bearer check, the write rate limit, the team door (another team's run, idea, experiment or eval
 * is a 404), and only then the body parsers, so an anonymous, throttled or foreign client cannot
 * make the API read a body. Bull Board (mounted by
 * @bull-board/nestjs as Nest middleware at init, after these) and /docs sit behind the same doors.
 */
export async function createApiApp(
  env: ApiEnv,
  opts: { policy: OperatorPolicy; logger?: LogLevel[] | LoggerService | false },
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(env, opts.policy), {
    bodyParser: false,
    abortOnError: false,
    logger: opts.logger ?? ['error', 'warn', 'log'],
  });
  // Behind a load balancer the client address is the forwarded one; it keys the open API's rate limit.
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  if (env.CORS_ORIGINS.length) {
    app.enableCors({
      origin: env.CORS_ORIGINS.includes('*') ? true : env.CORS_ORIGINS,
      allowedHeaders: CORS_REQUEST_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
  // The workbench's static files, before the bearer door: they hold no run data, and a browser
  // opening the page has no token yet. It answers only its own routes; the rest meet the doors.
  const webRoot = webRootOf(env);
  if (!existsSync(join(webRoot, 'index.html'))) {
    new Logger('api').warn(`workbench: no index.html in ${webRoot}; / answers 503 until it is built (node tools/build.mjs web, or set WEB_ROOT)`);
  }
  app.use(workbenchHandler(webRoot));
  app.use(bearerAuth(new TokenBook(env.API_TOKENS)));
  app.use(writeRateLimit({ perMinute: env.RATE_LIMIT_WRITES_PER_MIN, storage: app.get(RedisTokenBucketStorage), prefix: env.QUEUE_PREFIX }));
  // The primary, never the read replica: a run, idea or eval created a moment ago must pass its door
  // (a 404 there would answer GET-after-POST wrongly), and it is one primary-key read per request.
  app.use(teamDoor(app.get(INFRA.dataSource)));
  registerBodyParsers(app, env.API_BODY_LIMIT);
  app.useGlobalFilters(new ApiExceptionFilter());
  // Mounted before init() registers Nest's routes and its 404 handler.
  app.use(DOCS_PATH, docsHandler(buildOpenApiDocument({ version: '1', bodyLimit: env.API_BODY_LIMIT, writesPerMinute: env.RATE_LIMIT_WRITES_PER_MIN })));
  return app;
}
