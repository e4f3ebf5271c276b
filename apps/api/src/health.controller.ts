import { Controller, Get, HttpCode } from '@nestjs/common';
import { HealthCheck } from '@nestjs/terminus';
import { readinessAnswer } from '@roundtable/observability';
import { ApiError } from './api-error';
import { ReadinessService } from './readiness.service';

@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: the process serves HTTP; dependencies are /readyz's business. Both answer without a token. */
  @Get('healthz')
  @HttpCode(200)
  health() {
    return { status: 'ok' };
  }

  /** 200 with every check; 503 naming the dependency that does not answer, and once shutdown has begun (terminus). Our OpenAPI document describes it, not terminus's. */
  @Get('readyz')
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  async ready() {
    const { statusCode, body } = readinessAnswer(await this.readiness.check());
    if ('error' in body) throw new ApiError(statusCode, body);
    return body;
  }
}
