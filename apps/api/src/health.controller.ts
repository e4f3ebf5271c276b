import { Controller, Get, HttpCode } from '@nestjs/common';
import { failingChecks } from '@roundtable/observability';
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

  @Get('readyz')
  async ready() {
    const r = await this.readiness.check();
    if (!r.ready) throw new ApiError(503, { error: 'not_ready', message: `not ready: ${failingChecks(r)}`, checks: r.checks });
    return { status: 'ok', checks: r.checks };
  }
}
