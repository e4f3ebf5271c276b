import { generateKeyPairSync } from 'node:crypto';
import { parseServiceEnv, signatureVerifies } from '@roundtable/contracts';
import { OrchestratorEnv } from './orchestrator.env';

const base = { DATABASE_URL: 'postgres://x@127.0.0.1/db', REDIS_URL: 'redis://127.0.0.1:6379' };
const pkcs8 = (type: 'ed25519' | 'rsa') =>
  (type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 1024 }) : generateKeyPairSync('ed25519')).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('AUDIT_SIGNING_KEY', () => {
  it('unset or empty: no signer', () => {
    expect(parseServiceEnv('orchestrator', OrchestratorEnv, base).AUDIT_SIGNING_KEY).toBeNull();
    expect(parseServiceEnv('orchestrator', OrchestratorEnv, { ...base, AUDIT_SIGNING_KEY: '' }).AUDIT_SIGNING_KEY).toBeNull();
  });

  it('an Ed25519 PEM (as is, or on one line with \\n): a signer whose signatures verify', () => {
    for (const pem of [pkcs8('ed25519'), pkcs8('ed25519').replace(/\n/g, '\\n')]) {
      const signer = parseServiceEnv('orchestrator', OrchestratorEnv, { ...base, AUDIT_SIGNING_KEY: pem }).AUDIT_SIGNING_KEY!;
      expect(signatureVerifies('run_x', signer.sign('run_x', 3, 'ab'.repeat(32)))).toBe(true);
    }
  });

  it('anything else fails the start, naming the variable and how to make a key', () => {
    expect(() => parseServiceEnv('orchestrator', OrchestratorEnv, { ...base, AUDIT_SIGNING_KEY: 'not a key' })).toThrow(
      /AUDIT_SIGNING_KEY: AUDIT_SIGNING_KEY is not a PEM private key .*openssl genpkey -algorithm ed25519/,
    );
    expect(() => parseServiceEnv('orchestrator', OrchestratorEnv, { ...base, AUDIT_SIGNING_KEY: pkcs8('rsa') })).toThrow(/is a rsa key; the record is signed with Ed25519/);
  });
});
