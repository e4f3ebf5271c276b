import { z } from 'zod';
import { CommonEnv, keyFromEnv, parsePublicKey } from '@roundtable/contracts';
import { ApiTokensEnv } from './api-tokens';
import { isLoopbackHost, listenHost } from './listen-host';

export const ApiEnv = CommonEnv.extend({
  PORT: z.coerce
    .number({ error: 'PORT must be a TCP port number, e.g. 3000' })
    .int('PORT must be a whole number')
    .min(0, 'PORT must be between 0 and 65535')
    .max(65535, 'PORT must be between 0 and 65535')
    .default(3000),
  /**
   * The operator's Ed25519 public key (SPKI PEM; `openssl pkey -in audit.pem -pubout` of the
   * orchestrator's AUDIT_SIGNING_KEY): GET /v1/runs/:id/verify checks a run's signature with it,
   * so a record re-signed with any other key fails (issue 26). Unset: with the key the signature carries.
   */
  AUDIT_PUBLIC_KEY: keyFromEnv((pem) => parsePublicKey(pem)),
  /**
   * A streaming read replica of DATABASE_URL's database (issue 27): the api's pure reads — lists, a
   * run's views, records and calls, the bulk of an event replay, exports — go there, on a small
   * read-only pool; writes and every read that must see a write just made stay on DATABASE_URL.
   * Unset: every read on DATABASE_URL.
   */
  DATABASE_READ_URL: z.preprocess(
    // Empty is unset, as a compose file's ${DATABASE_READ_URL:-} passes it.
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, 'DATABASE_READ_URL must be a URL like postgres://user@replica-host:5432/roundtable (a read replica of DATABASE_URL), or unset')
      .optional(),
  ),
  /** Largest request body accepted (JSON or YAML), in body-parser's notation: 1mb, 512kb … */
  API_BODY_LIMIT: z
    .string()
    .regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'API_BODY_LIMIT is a size like 1mb or 512kb')
    .default('1mb'),
  /** Idle time after which an event stream sends a heartbeat comment (and re-reads the log for anything pub/sub lost). */
  SSE_HEARTBEAT_MS: z.coerce
    .number({ error: 'SSE_HEARTBEAT_MS must be a number of milliseconds, e.g. 15000' })
    .int('SSE_HEARTBEAT_MS must be a whole number')
    .min(10, 'SSE_HEARTBEAT_MS must be at least 10')
    .default(15_000),
  /** The reconnection delay an event stream announces to EventSource (its `retry:` field). */
  SSE_RETRY_MS: z.coerce
    .number({ error: 'SSE_RETRY_MS must be a number of milliseconds, e.g. 3000' })
    .int('SSE_RETRY_MS must be a whole number')
    .min(0, 'SSE_RETRY_MS must be 0 or more')
    .default(3000),
  /**
   * An internal ops port with /healthz, /readyz and /metrics and no token, as every worker has (0: any
   * free port). Unset: none; /metrics is then only on PORT, behind the token.
   */
  HEALTH_PORT: z.coerce
    .number({ error: 'HEALTH_PORT must be a TCP port number, e.g. 9464' })
    .int('HEALTH_PORT must be a whole number')
    .min(0, 'HEALTH_PORT must be between 0 and 65535')
    .max(65535, 'HEALTH_PORT must be between 0 and 65535')
    .optional(),
  /**
   * The address to listen on. Unset: 127.0.0.1 (this machine only) without API_TOKENS, 0.0.0.0
   * (every interface) with them. An api without tokens on any other address needs API_OPEN=true.
   */
  HOST: z
    .string()
    .trim()
    .min(1, 'HOST is an address to listen on, e.g. 127.0.0.1 or 0.0.0.0')
    // [::1] as in a URL; the socket wants it bare.
    .transform((h) => h.replace(/^\[(.*)\]$/, '$1'))
    .optional(),
  /** `name:token:role,…` (role write or read). Unset: the API runs open, on loopback only unless API_OPEN=true. */
  API_TOKENS: ApiTokensEnv,
  /** true: run without API_TOKENS on a non-loopback HOST, on purpose (logged as a warning at every start). */
  API_OPEN: z
    .enum(['true', 'false'], { error: 'API_OPEN is true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  /** Writes (POST …) a token may make per minute (per client address when open), as a token bucket in Redis shared by every replica; 0: no limit. */
  RATE_LIMIT_WRITES_PER_MIN: z.coerce
    .number({ error: 'RATE_LIMIT_WRITES_PER_MIN must be a number of writes a minute, e.g. 60' })
    .int('RATE_LIMIT_WRITES_PER_MIN must be a whole number')
    .min(0, 'RATE_LIMIT_WRITES_PER_MIN must be 0 (no limit) or more')
    .default(60),
  /** Browser origins allowed to call the API (comma list, e.g. https://ops.example.com). Unset: no CORS headers at all. */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((s) => (s ?? '').split(',').map((o) => o.trim()).filter(Boolean))
    .refine((list) => list.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), 'CORS_ORIGINS is a comma list of origins such as https://ops.example.com (scheme and host, no path), or *'),
  /**
   * The built workbench (apps/web: index.html and assets/) served at / and /assets. Unset:
   * dist/apps/web beside the api's bundle (or of the repository, run from source). Relative: to the working directory.
   */
  WEB_ROOT: z.string().trim().min(1, 'WEB_ROOT is a directory holding the built workbench (index.html, assets/)').optional(),
  /** The example projects New run offers (directories holding a project.yaml). Unset: ./examples of the working directory. */
  EXAMPLES_DIR: z.string().trim().min(1, 'EXAMPLES_DIR is a directory of example projects').optional(),
}).superRefine((env, ctx) => {
  // Never open by accident: an api without tokens answers anyone who reaches it, so it stays on loopback unless told.
  const host = listenHost(env);
  if (env.API_TOKENS.length === 0 && !env.API_OPEN && !isLoopbackHost(host)) {
    ctx.addIssue({
      code: 'custom',
      path: ['HOST'],
      message: `HOST=${host} would open the api to every client that can reach this machine, and API_TOKENS is not set, so it would take no token. Set API_TOKENS=name:token:write (a token: openssl rand -hex 24), or listen on loopback (HOST=127.0.0.1, the default without tokens), or set API_OPEN=true to run it open on purpose`,
    });
  }
});
export type ApiEnv = z.infer<typeof ApiEnv>;
