import { concurrencyEnvVar, queueSettings, UNLIMITED } from './queue-settings';

describe('queueSettings', () => {
  it('takes rate limit and concurrency from the provider entry of the project file', () => {
    expect(queueSettings('xai', { rate_limit: { max: 5, duration_ms: 60_000 }, concurrency: 2 }, {}, 4)).toMatchObject({
      concurrency: 2,
      limiter: { max: 5, duration: 60_000 },
    });
  });

  it('PROVIDER_CONCURRENCY_<NAME> overrides the project file; PROVIDER_CONCURRENCY is the default', () => {
    expect(concurrencyEnvVar('grok-cli')).toBe('PROVIDER_CONCURRENCY_GROK_CLI');
    expect(queueSettings('grok-cli', { concurrency: 2 }, { PROVIDER_CONCURRENCY_GROK_CLI: '1' }, 4).concurrency).toBe(1);
    expect(queueSettings('grok-cli', null, { PROVIDER_CONCURRENCY_GROK_CLI: 'lots' }, 4).concurrency).toBe(4);
    expect(queueSettings('anthropic', null, {}, 4)).toMatchObject({ concurrency: 4, source: 'concurrency 4 (PROVIDER_CONCURRENCY), no rate limit' });
  });

  it('without a configured rate limit still has a limiter, so a 429 can back the queue off', () => {
    expect(queueSettings('anthropic', {}, {}, 4).limiter).toEqual(UNLIMITED);
  });
});
