import { Injectable, Module, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, TerminusModule, type HealthCheckResult } from '@nestjs/terminus';
import { probeIndicators, readinessOf, type Readiness, type ReadinessProbe } from './readiness';

/**
 * Readiness inside a Nest application, through terminus's HealthCheckService: the probes run as
 * health indicators (each with its deadline), and from the moment Nest begins shutting down
 * (terminus's beforeApplicationShutdown) every check answers not ready, so a load balancer stops
 * sending before the connections close.
 */
@Injectable()
export class TerminusReadiness {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(probes: Record<string, ReadinessProbe>, timeoutMs = 2000): Promise<Readiness> {
    const result = await this.health.check(probeIndicators(this.indicators, probes, timeoutMs)).catch((e: unknown) => {
      // HealthCheckService answers a failing check, and any check once shutdown began, with a 503 that holds the result.
      if (e instanceof ServiceUnavailableException) return e.getResponse() as HealthCheckResult;
      throw e;
    });
    return readinessOf(Object.keys(probes), result);
  }
}

/**
 * Terminus with its logger off: a failing dependency is already in the 503 a probe reads, and a
 * kubelet polling every few seconds would otherwise log it as an error each time.
 */
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  providers: [TerminusReadiness],
  exports: [TerminusReadiness],
})
export class ReadinessModule {}
