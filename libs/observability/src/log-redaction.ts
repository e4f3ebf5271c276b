/** What a redacted secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Key shapes hidden wherever they appear, even when this process does not hold the key (a provider's
 * error message that echoes a key, a config pasted into an error): OpenAI/Anthropic-style `sk-…` keys
 * and bearer credentials.
 */
const KEY_SHAPES: RegExp[] = [/sk-[A-Za-z0-9_-]{10,}/g, /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g];

/**
 * Keys whose values are secrets by their name, for pino's `redact` (exact, case-sensitive paths):
 * a log call that hands over a config, a request's headers or a provider's options object has
 * them censored before serialization, whatever the value looks like. Top level and one level down
 * (`{ headers: { authorization } }`); deeper objects are still covered by the value scrubbing.
 */
export const SECRET_KEY_PATHS: readonly string[] = [
  ...['apiKey', 'api_key', 'token', 'password', 'secret', 'authorization', 'cookie'].flatMap((k) => [k, `*.${k}`]),
  '["x-api-key"]',
  '*["x-api-key"]',
];

/** Environment variables whose values are secrets by their name. */
const SECRET_ENV_NAME = /(_KEY|_TOKEN|_SECRET|_PASSWORD)$/;

/** Shorter values are left alone: hiding every occurrence of a 4-letter word would garble logs and hide nothing. */
const MIN_SECRET_LENGTH = 8;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The password inside a connection URL (postgres://user:pw@host/db), if any. */
function urlPassword(value: string): string | null {
  try {
    return decodeURIComponent(new URL(value).password) || null;
  } catch {
    // A URL listing several hosts (redis+cluster://u:pw@h1:1,h2:2) is no WHATWG URL; its password still is one.
    const pw = /^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:([^/]*)@[^@/]*/i.exec(value)?.[1];
    if (!pw) return null;
    try {
      return decodeURIComponent(pw);
    } catch {
      return pw;
    }
  }
}

/**
 * The secret values this process holds: every `*_KEY` (ANTHROPIC_API_KEY, a project's api_key_env), `*_TOKEN`, `*_SECRET`, `*_PASSWORD` variable,
 * the password of every `*_URL` (DATABASE_URL, REDIS_URL), and the tokens inside API_TOKENS (`name:token:role,…`).
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && SECRET_ENV_NAME.test(name)) out.push(value);
    const pw = value && name.endsWith('_URL') ? urlPassword(value) : null;
    if (pw) out.push(pw);
  }
  for (const entry of (env.API_TOKENS ?? '').split(',')) {
    const first = entry.indexOf(':');
    const last = entry.lastIndexOf(':');
    if (first >= 0 && last > first) out.push(entry.slice(first + 1, last).trim());
  }
  return out.filter((s) => s.length >= MIN_SECRET_LENGTH);
}

/** Replaces known secret values and key-shaped strings with `[redacted]` in any text bound for a log. */
export class SecretRedactor {
  private readonly known: RegExp | null;

  constructor(secrets: readonly string[] = []) {
    const values = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
    this.known = values.length ? new RegExp(values.map(escapeRegExp).join('|'), 'g') : null;
  }

  redact(text: string): string {
    let out = this.known ? text.replace(this.known, REDACTED) : text;
    for (const shape of KEY_SHAPES) out = out.replace(shape, (_m, scheme: unknown) => (typeof scheme === 'string' ? `${scheme} ${REDACTED}` : REDACTED));
    return out;
  }
}
