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

  it('shows nothing of a URL it cannot parse', () => {
    expect(redactDatabaseUrl('not a url with s3cret')).toBe('<unparseable database url>');
  });
});
