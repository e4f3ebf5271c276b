import { redactDatabaseUrl } from './redact-database-url';

describe('redactDatabaseUrl', () => {
  it('masks the password and keeps everything a reader needs to find the database', () => {
    expect(redactDatabaseUrl('postgres://app:s3cret@db.internal:5432/roundtable')).toBe(
      'postgres://app:***@db.internal:5432/roundtable',
    );
  });

  it('leaves a URL without a password as it was', () => {
    expect(redactDatabaseUrl('postgres://postgres@127.0.0.1:5432/postgres')).toBe(
      'postgres://postgres@127.0.0.1:5432/postgres',
    );
  });

  it('masks the password of a URL listing several hosts (a Redis Cluster, Sentinel), which is no WHATWG URL', () => {
    expect(redactDatabaseUrl('redis+cluster://app:s3cret@10.0.0.1:7000,10.0.0.2:7001')).toBe('redis+cluster://app:***@10.0.0.1:7000,10.0.0.2:7001');
    expect(redactDatabaseUrl('redis+sentinel://:s3cret@s1:26379,s2:26379/mymaster')).toBe('redis+sentinel://:***@s1:26379,s2:26379/mymaster');
    expect(redactDatabaseUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001')).toBe('redis+cluster://10.0.0.1:7000,10.0.0.2:7001');
  });

  it('shows nothing of a URL it cannot parse', () => {
    expect(redactDatabaseUrl('not a url with s3cret')).toBe('<unparseable database url>');
  });
});
