import { NestFactory } from '@nestjs/core';
import type { LogLevel } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ApiExceptionFilter } from './api-exception.filter';
import type { ApiEnv } from './api.env';
import { ApiModule } from './api.module';
import { registerBodyParsers } from './body-parsers';
import { BULL_BOARD_PATH, BullBoardService } from './bull-board.service';

/**
 * Builds the api application without listening, so main.ts and the integration tests run the
 * same wiring. abortOnError is off: a failed start (unmigrated database, Redis down) must
 * reach runService as an error, not abort the process from inside Nest.
 */
export async function createApiApp(env: ApiEnv, opts: { logger?: LogLevel[] | false } = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(env), {
    bodyParser: false,
    abortOnError: false,
    logger: opts.logger ?? ['error', 'warn', 'log'],
  });
  registerBodyParsers(app, env.API_BODY_LIMIT);
  app.useGlobalFilters(new ApiExceptionFilter());
  // Mounted before init() registers Nest's routes and its 404 handler.
  app.use(BULL_BOARD_PATH, app.get(BullBoardService).router());
  app.enableShutdownHooks();
  return app;
}
