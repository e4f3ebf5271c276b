import { redisConnectionOptions } from './redis-connection';

describe('redisConnectionOptions', () => {
  it('reads host, port, credentials, database and TLS from REDIS_URL, and never limits a blocked command’s retries', () => {
    expect(redisConnectionOptions('redis://127.0.0.1:6379')).toEqual({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null, enableReadyCheck: true });
    expect(redisConnectionOptions('rediss://app:p%40ss@cache.internal:6380/2')).toEqual({
      host: 'cache.internal',
      port: 6380,
      username: 'app',
      password: 'p@ss',
      db: 2,
      tls: {},
      maxRetriesPerRequest: null,
      enableReadyCheck: true,
    });
    expect(redisConnectionOptions('redis://[::1]')).toMatchObject({ host: '::1', port: 6379 });
  });

  it('names REDIS_URL and the form it takes when the URL is not one', () => {
    expect(() => redisConnectionOptions('localhost:6379')).toThrow('REDIS_URL must start with redis:// or rediss://');
    expect(() => redisConnectionOptions('not a url')).toThrow('REDIS_URL is not a URL (not a url): give redis://[user:password@]host[:port][/db]');
  });
});
