import { REDACTED, SecretRedactor, secretsFromEnv } from './log-redaction';

describe('SecretRedactor', () => {
  it('hides sk- keys and bearer credentials by their shape', () => {
    const r = new SecretRedactor();
    expect(r.redact('401 from provider: key sk-ant-api03-AbCdEf0123456789 rejected')).toBe(`401 from provider: key ${REDACTED} rejected`);
    expect(r.redact('sent Authorization: Bearer abcdefgh12345678')).toBe(`sent Authorization: Bearer ${REDACTED}`);
    expect(r.redact('sk-short')).toBe('sk-short');
  });

  it('hides the secret values this process holds, wherever they appear', () => {
    const env = {
      ANTHROPIC_API_KEY: 'plain-key-value-0001',
      GITHUB_TOKEN: 'ghp_zzzzzzzzzz',
      API_TOKENS: 'ci:ci-token-0123456789:write,dash:read-token-abcdefgh:read',
      DATABASE_URL: 'postgres://rt:db-pass%2Fword1@db:5432/roundtable',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PATH: '/usr/bin:/bin',
      SHORT_API_KEY: 'abc',
      E2E_ANTHROPIC_KEY: 'named-by-a-project-file',
    };
    const secrets = secretsFromEnv(env);
    expect(secrets.sort()).toEqual(['ci-token-0123456789', 'db-pass/word1', 'ghp_zzzzzzzzzz', 'named-by-a-project-file', 'plain-key-value-0001', 'read-token-abcdefgh']);
    const r = new SecretRedactor(secrets);
    expect(r.redact('got plain-key-value-0001 and ci-token-0123456789 in /usr/bin')).toBe(`got ${REDACTED} and ${REDACTED} in /usr/bin`);
  });

  it('finds the password of a Redis Cluster’s URL, which lists several hosts', () => {
    expect(secretsFromEnv({ REDIS_URL: 'rediss+cluster://app:cluster-pass%21@10.0.0.1:7000,10.0.0.2:7001' })).toEqual(['cluster-pass!']);
  });

  it('treats regex characters in a secret literally', () => {
    const r = new SecretRedactor(['a.b*c+d?e(f)']);
    expect(r.redact('x a.b*c+d?e(f) y aXbbbcdde(f)')).toBe(`x ${REDACTED} y aXbbbcdde(f)`);
  });
});
