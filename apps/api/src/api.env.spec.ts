import { generateKeyPairSync } from 'node:crypto';
import { parseServiceEnv } from '@roundtable/contracts';
import { ApiEnv } from './api.env';
import { isLoopbackHost, listenHost } from './listen-host';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/rt', REDIS_URL: 'redis://127.0.0.1:6379' };
const TOKENS = 'ci:0123456789abcdef0123:write';
const parse = (env: Record<string, string>) => parseServiceEnv('api', ApiEnv, { ...base, ...env });

describe('ApiEnv: never open by accident', () => {
  it('listens on loopback without API_TOKENS, on every interface with them', () => {
    expect(listenHost(parse({}))).toBe('127.0.0.1');
    expect(listenHost(parse({ API_TOKENS: TOKENS }))).toBe('0.0.0.0');
    expect(listenHost(parse({ API_TOKENS: TOKENS, HOST: '10.1.2.3' }))).toBe('10.1.2.3');
  });

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.8.9.10', '127.8.9.10'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['localhost', 'localhost'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1'],
  ])('starts without tokens on loopback HOST=%s (listening on %s)', (host, bare) => {
    expect(parse({ HOST: host }).HOST).toBe(bare);
  });

  it.each(['0.0.0.0', '::', '10.0.0.5', 'api.internal'])('refuses HOST=%s without tokens, naming API_TOKENS, HOST and API_OPEN', (host) => {
    expect(() => parse({ HOST: host })).toThrow(/- HOST: HOST=.* API_TOKENS is not set.*API_TOKENS=name:token:write.*HOST=127\.0\.0\.1.*API_OPEN=true/);
  });

  it('opens on purpose with API_OPEN=true, and only with exactly true or false', () => {
    expect(parse({ HOST: '0.0.0.0', API_OPEN: 'true' }).API_OPEN).toBe(true);
    expect(parse({}).API_OPEN).toBe(false);
    expect(() => parse({ HOST: '0.0.0.0', API_OPEN: 'yes' })).toThrow(/API_OPEN: API_OPEN is true or false/);
  });

  it('takes any HOST with tokens', () => {
    expect(parse({ HOST: '0.0.0.0', API_TOKENS: TOKENS }).HOST).toBe('0.0.0.0');
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback from the rest', () => {
    expect(['127.0.0.1', '::1', 'LOCALHOST'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '128.0.0.1', '::', 'example.com', ''].some(isLoopbackHost)).toBe(false);
  });
});

describe('ApiEnv: AUDIT_PUBLIC_KEY (issue 26)', () => {
  it('takes an Ed25519 SPKI PEM, and refuses anything else naming the openssl line that makes one', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(parse({ AUDIT_PUBLIC_KEY: pem }).AUDIT_PUBLIC_KEY).toBe(pem);
    expect(parse({}).AUDIT_PUBLIC_KEY).toBeNull();
    expect(() => parse({ AUDIT_PUBLIC_KEY: 'not a key' })).toThrow(/AUDIT_PUBLIC_KEY: AUDIT_PUBLIC_KEY is not a PEM public key.*openssl pkey -in audit.pem -pubout/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => parse({ AUDIT_PUBLIC_KEY: rsa })).toThrow(/AUDIT_PUBLIC_KEY is a rsa key; the record is signed with Ed25519/);
  });
});

describe('ApiEnv: DATABASE_READ_URL', () => {
  it('is optional: unset, every read stays on DATABASE_URL', () => {
    expect(parse({}).DATABASE_READ_URL).toBeUndefined();
    expect(parse({ DATABASE_READ_URL: '' }).DATABASE_READ_URL).toBeUndefined();
  });

  it('takes a Postgres URL, and names the field and the form when it is not one', () => {
    expect(parse({ DATABASE_READ_URL: 'postgres://reader@replica:5432/rt' }).DATABASE_READ_URL).toBe('postgres://reader@replica:5432/rt');
    expect(() => parse({ DATABASE_READ_URL: 'replica:5432' })).toThrow(/DATABASE_READ_URL: DATABASE_READ_URL must be a URL like postgres:\/\//);
  });
});
