import { parseRedisUrl } from './redis-url';
import { queuePrefix } from './queue-prefix';

describe('parseRedisUrl', () => {
  it('reads a Redis Cluster: every node listed, credentials and TLS for each, no retry limit', () => {
    expect(parseRedisUrl('rediss+cluster://app:p%40ss@10.0.0.1:7000,10.0.0.2,[::1]:7002')).toEqual({
      topology: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      options: { username: 'app', password: 'p@ss', tls: {}, maxRetriesPerRequest: null, enableReadyCheck: true },
    });
  });

  it('reads Sentinel: the sentinels (default port 26379), the master’s name and a database', () => {
    expect(parseRedisUrl('redis+sentinel://:secret@s1,s2:5000/mymaster/3')).toEqual({
      topology: 'sentinel',
      options: {
        sentinels: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 5000 },
        ],
        name: 'mymaster',
        db: 3,
        password: 'secret',
        maxRetriesPerRequest: null,
        enableReadyCheck: true,
      },
    });
  });

  it('reads a single Redis as before', () => {
    expect(parseRedisUrl('redis://cache:6380/1')).toEqual({
      topology: 'single',
      options: { host: 'cache', port: 6380, db: 1, maxRetriesPerRequest: null, enableReadyCheck: true },
    });
  });

  it.each([
    ['redis://a:1,b:2', 'names 2 hosts: for a Redis Cluster write redis+cluster://'],
    ['redis+sentinel://s1:26379', 'a Sentinel URL names the master after the hosts'],
    ['redis+cluster://a:7000/0', 'a Redis Cluster has no database number'],
    ['redis+cluster://a:7000,,b:7001', 'an empty host'],
    ['redis://cache/zero', 'the database must be a number'],
    ['redis+cluster://a:99999', 'port 99999 of "a:99999" is not between 1 and 65535'],
    ['http://cache:6379', 'REDIS_URL must start with redis:// or rediss:// (or redis+cluster://, redis+sentinel://), got http://'],
  ])('refuses %s, saying what is wrong', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });
});

describe('queuePrefix', () => {
  it('puts each queue in its own Redis Cluster slot: the queue name is the hash tag, after the deployment’s prefix', () => {
    expect(queuePrefix('roundtable', 'orchestrator')).toBe('roundtable:{orchestrator}');
    expect(queuePrefix('rt_a', 'agent.replay')).toBe('rt_a:{agent.replay}');
  });
});
