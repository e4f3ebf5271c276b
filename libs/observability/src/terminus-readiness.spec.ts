import { NestFactory } from '@nestjs/core';
import { failingChecks } from './readiness';
import { ReadinessModule, TerminusReadiness } from './terminus-readiness';

describe('TerminusReadiness', () => {
  it('answers through terminus: every check in order, the failing one named, and not ready once shutdown began', async () => {
    const app = await NestFactory.createApplicationContext(ReadinessModule, { logger: false });
    const readiness = app.get(TerminusReadiness);
    expect(await readiness.check({ postgres: async () => 1, redis: async () => 'PONG' })).toEqual({ ready: true, checks: { postgres: 'ok', redis: 'ok' } });
    const down = await readiness.check(
      {
        redis: () => new Promise(() => undefined),
        postgres: async () => 1,
        docker: async () => {
          throw new Error('connect ENOENT /var/run/docker.sock');
        },
      },
      50,
    );
    expect(down).toEqual({ ready: false, checks: { redis: 'no answer within 50 ms', postgres: 'ok', docker: 'connect ENOENT /var/run/docker.sock' } });
    expect(failingChecks(down)).toBe('redis: no answer within 50 ms; docker: connect ENOENT /var/run/docker.sock');
    await app.close();
    const closing = await readiness.check({ postgres: async () => 1 });
    expect(closing).toEqual({ ready: false, checks: {}, shuttingDown: true });
    expect(failingChecks(closing)).toBe('shutting down');
  });
});
