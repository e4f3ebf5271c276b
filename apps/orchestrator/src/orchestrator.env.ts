import { z } from 'zod';
import { WorkerEnv } from '@roundtable/contracts';

export const OrchestratorEnv = WorkerEnv.extend({
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
});
export type OrchestratorEnv = z.infer<typeof OrchestratorEnv>;
