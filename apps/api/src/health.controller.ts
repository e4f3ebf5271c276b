import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiError } from './api-error';
import { ReadinessService } from './readiness.service';

@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: the process serves HTTP; dependencies are /readyz's business. */
  @Get('healthz')
  @HttpCode(200)
  health() {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready() {
    const r = await this.readiness.check();
    if (!r.ready) {
      const failing = Object.entries(r.checks)
        .filter(([, v]) => v !== 'ok')
        .map(([k, v]) => `${k}: ${v}`);
      throw new ApiError(503, { error: 'not_ready', message: `not ready: ${failing.join('; ')}`, checks: r.checks });
    }
    return { status: 'ok', checks: r.checks };
  }
}
