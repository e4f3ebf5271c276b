import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/**
 * The operator's signature of a run's head hash at a terminal event (AUDIT_SIGNING_KEY): an
 * Ed25519 signature over `roundtable-record:v1\n<run id>\n<sequence>\n<hash>`, so it names the
 * run and the point of the chain it vouches for and cannot be moved to another run.
 */
export const RunSignature = z.object({
  /** The event the signature vouches for: the run's head when it was signed. */
  sequence: z.number().int().positive(),
  hash: z.string(),
  /** Base64. */
  signature: z.string(),
  /** The signer's public key, SPKI PEM: a reader with no trusted key checks against this one (which shows consistency, not who signed). */
  public_key: z.string(),
  algorithm: z.literal('ed25519'),
});
export type RunSignature = z.infer<typeof RunSignature>;

export function signedMessage(runId: string, sequence: number, hash: string): Buffer {
  return Buffer.from(`roundtable-record:v1\n${runId}\n${sequence}\n${hash}`, 'utf8');
}

/** A signing key, parsed once at start. */
export interface RecordSigner {
  sign(runId: string, sequence: number, hash: string): RunSignature;
  publicKeyPem: string;
}

export class SigningKeyError extends Error {
  readonly code = 'AUDIT_SIGNING_KEY_INVALID';
}

/**
 * Reads AUDIT_SIGNING_KEY: an Ed25519 private key as PKCS#8 PEM (`openssl genpkey -algorithm
 * ed25519`), its newlines as they are or written `\n` (one env line). Throws SigningKeyError
 * naming the fix on anything else.
 */
export function parseSigningKey(pem: string, envName = 'AUDIT_SIGNING_KEY'): RecordSigner {
  const text = pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem;
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch (e) {
    throw new SigningKeyError(
      `${envName} is not a PEM private key (${(e as Error).message}). Make one with \`openssl genpkey -algorithm ed25519 -out audit.pem\` and set ${envName} to the file's contents.`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new SigningKeyError(
      `${envName} is a ${key.asymmetricKeyType ?? 'non-asymmetric'} key; the record is signed with Ed25519. Make one with \`openssl genpkey -algorithm ed25519 -out audit.pem\`.`,
    );
  }
  const publicKeyPem = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  return {
    publicKeyPem,
    sign: (runId, sequence, hash) => ({
      sequence,
      hash,
      signature: sign(null, signedMessage(runId, sequence, hash), key).toString('base64'),
      public_key: publicKeyPem,
      algorithm: 'ed25519',
    }),
  };
}

/**
 * Reads AUDIT_PUBLIC_KEY (the api's): the operator's Ed25519 public key as SPKI PEM (`openssl pkey
 * -in audit.pem -pubout`), newlines as they are or written `\n`. Throws SigningKeyError naming the fix.
 */
export function parsePublicKey(pem: string, envName = 'AUDIT_PUBLIC_KEY'): string {
  const text = pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: text, format: 'pem' });
  } catch (e) {
    throw new SigningKeyError(`${envName} is not a PEM public key (${(e as Error).message}). Make it from the signing key with \`openssl pkey -in audit.pem -pubout\`.`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new SigningKeyError(`${envName} is a ${key.asymmetricKeyType ?? 'non-asymmetric'} key; the record is signed with Ed25519 (\`openssl pkey -in audit.pem -pubout\`).`);
  }
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/** Does the signature verify for this run, with this public key (SPKI PEM, or the signature's own)? False on a malformed key. */
export function signatureVerifies(runId: string, s: RunSignature, publicKeyPem: string = s.public_key): boolean {
  try {
    const key = createPublicKey({ key: publicKeyPem, format: 'pem' });
    if (key.asymmetricKeyType !== 'ed25519') return false;
    return verify(null, signedMessage(runId, s.sequence, s.hash), key, Buffer.from(s.signature, 'base64'));
  } catch {
    return false;
  }
}

/** The same key? Compared as DER, so PEM line endings do not matter. */
export function samePublicKey(a: string, b: string): boolean {
  try {
    const der = (k: string) => createPublicKey({ key: k, format: 'pem' }).export({ type: 'spki', format: 'der' });
    return der(a).equals(der(b));
  } catch {
    return false;
  }
}

/**
 * An optional environment variable holding a key, read by `parse` at start: unset or blank is
 * null; a key `parse` refuses fails the start with its message (AUDIT_SIGNING_KEY, AUDIT_PUBLIC_KEY).
 */
export function keyFromEnv<T>(parse: (pem: string) => T) {
  return z
    .string()
    .optional()
    .transform((pem, ctx): T | null => {
      if (pem === undefined || pem.trim() === '') return null;
      try {
        return parse(pem);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: e instanceof SigningKeyError ? e.message : String(e) });
        return z.NEVER;
      }
    });
}
