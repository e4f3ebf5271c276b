import { checkReadiness, failingChecks } from './readiness';

describe('checkReadiness', () => {
  it('is ready when every probe answers', async () => {
    expect(await checkReadiness({ postgres: async () => 1, redis: async () => 'PONG' })).toEqual({ ready: true, checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('names the dependency that fails or does not answer in time', async () => {
    const r = await checkReadiness(
      {
        postgres: async () => 1,
        redis: () => new Promise(() => undefined),
        docker: async () => {
          throw new Error('connect ENOENT /var/run/docker.sock');
        },
        sync: () => {
          throw new Error('thrown before any promise');
        },
      },
      50,
    );
    expect(r).toEqual({
      ready: false,
      checks: { postgres: 'ok', redis: 'no answer within 50 ms', docker: 'connect ENOENT /var/run/docker.sock', sync: 'thrown before any promise' },
    });
    expect(failingChecks(r)).toBe('redis: no answer within 50 ms; docker: connect ENOENT /var/run/docker.sock; sync: thrown before any promise');
  });
});
