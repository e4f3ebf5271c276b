import { z } from 'zod';
import { keyFromEnv, parseSigningKey, WorkerEnv } from '@roundtable/contracts';

export const OrchestratorEnv = WorkerEnv.extend({
  /**
   * The operator's Ed25519 private key (PKCS#8 PEM, as `openssl genpkey -algorithm ed25519 -out
   * audit.pem` writes it; newlines as they are or written \n): the step that moves a run to a
   * terminal status signs its head hash with it (issue 26). Unset: runs are chained, not signed.
   * A key that is not one fails the start, naming the fix.
   */
  AUDIT_SIGNING_KEY: keyFromEnv((pem) => parseSigningKey(pem)),
  PROMPTS_DIR: z.string().optional(),
  /** How old an unsent outbox row must be before the sweeper re-sends it. */
  OUTBOX_SWEEP_MS: z.coerce.number().int().positive().default(5000),
  /** How often the reconciler compares the rows' pending work with Redis (0: never; see reconciler/run-reconciler.ts). */
  RECONCILE_MS: z.coerce.number().int().min(0).default(10_000),
  /** How old a pending row must be before its job, missing from Redis, is sent again. */
  RECONCILE_RESEND_AFTER_MS: z.coerce.number().int().positive().default(20_000),
  /** How long a running run may go with no step and nothing in flight before the reconciler halts it (resumable). */
  RECONCILE_HALT_AFTER_MS: z.coerce.number().int().positive().default(180_000),
  ORCHESTRATOR_CONCURRENCY: z.coerce.number().int().positive().default(8),
  /** The table the budget's worst-case USD reservations are priced at (the provider-worker's, default examples/pricing.yaml). */
  PRICING_FILE: z.string().min(1).optional(),
  /**
   * Backoff before each retry of a transient failure (network, 5xx, 429, timeout, interrupted),
   * in ms: one retry per entry, each a call the engine budget-checks and enqueues delayed (a
   * 429's retry-after wins over the entry). Empty: no retries. Read here since retries are the
   * orchestrator's decision (it was the provider-worker's setting, under the same name).
   */
  PROVIDER_RETRY_DELAYS_MS: z
    .string()
    .default('3000,9000,27000')
    .refine((s) => s.trim() === '' || s.split(',').every((d) => /^\s*\d+\s*$/.test(d)), 'PROVIDER_RETRY_DELAYS_MS is a comma list of milliseconds, e.g. 3000,9000,27000')
    .transform((s) => (s.trim() === '' ? [] : s.split(',').map((d) => Number(d.trim())))),
});
export type OrchestratorEnv = z.infer<typeof OrchestratorEnv>;
