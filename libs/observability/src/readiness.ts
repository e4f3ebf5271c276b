import { HealthIndicatorService, type HealthCheckResult, type HealthIndicatorFunction, type HealthIndicatorResult } from '@nestjs/terminus';

/** A dependency check: resolves when the dependency answers. */
export type ReadinessProbe = () => Promise<unknown>;

export interface Readiness {
  ready: boolean;
  /** Per dependency: `ok`, or why not. */
  checks: Record<string, string>;
  /** Shutdown has begun: not ready whatever the dependencies say. */
  shuttingDown?: boolean;
}

/** A lost Redis makes ioredis wait forever (BullMQ needs that), so every probe gets its own deadline. */
export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Each probe as a terminus health indicator under its name: `up`, or `down` with the reason as its
 * message. A probe never rejects the check: a failing dependency is an answer, not an error.
 */
export function probeIndicators(indicators: HealthIndicatorService, probes: Record<string, ReadinessProbe>, timeoutMs: number): HealthIndicatorFunction[] {
  return Object.entries(probes).map(([name, run]) => async () => {
    const indicator = indicators.check(name);
    try {
      await within(Promise.resolve().then(run), timeoutMs);
      return indicator.up();
    } catch (e) {
      return indicator.down({ message: (e as Error).message || 'failed' });
    }
  });
}

/** Terminus's answer as ours: one entry per probe, in the probes' order (the 503's message lists them so). */
export function readinessOf(names: string[], result: HealthCheckResult): Readiness {
  if (result.status === 'shutting_down') return { ready: false, checks: {}, shuttingDown: true };
  const details = result.details as Record<string, { status: string; message?: string }>;
  const checks = Object.fromEntries(names.map((n) => [n, details[n]?.status === 'up' ? 'ok' : (details[n]?.message ?? 'no answer')]));
  return { ready: result.status === 'ok', checks };
}

/**
 * Runs every probe in parallel through terminus's indicators; ready only when all answer `ok`.
 * For a caller outside a Nest context: within one, TerminusReadiness runs the same indicators
 * through terminus's HealthCheckService, which also knows when shutdown has begun.
 */
export async function checkReadiness(probes: Record<string, ReadinessProbe>, timeoutMs = 2000): Promise<Readiness> {
  const results: HealthIndicatorResult[] = await Promise.all(probeIndicators(new HealthIndicatorService(), probes, timeoutMs).map((check) => check()));
  const details = Object.assign({}, ...results) as HealthIndicatorResult;
  const down = Object.values(details).some((d) => d.status !== 'up');
  return readinessOf(Object.keys(probes), { status: down ? 'error' : 'ok', details });
}

/** `redis: no answer within 200 ms; docker: connect ENOENT` — the failing dependencies, for a 503's message. */
export function failingChecks(r: Readiness): string {
  if (r.shuttingDown) return 'shutting down';
  return Object.entries(r.checks)
    .filter(([, v]) => v !== 'ok')
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
}

export type ReadinessBody = { status: 'ok'; checks: Record<string, string> } | { error: 'not_ready'; message: string; checks: Record<string, string> };

/** What /readyz answers, on the api's port and on a worker's ops port alike: 200 with every check, or 503 naming what is not ready. */
export function readinessAnswer(r: Readiness): { statusCode: 200 | 503; body: ReadinessBody } {
  if (r.ready) return { statusCode: 200, body: { status: 'ok', checks: r.checks } };
  return { statusCode: 503, body: { error: 'not_ready', message: `not ready: ${failingChecks(r)}`, checks: r.checks } };
}
