import { z } from 'zod';
import { WorkerEnv } from '@roundtable/contracts';

export const ProviderWorkerEnv = WorkerEnv.extend({
  PROVIDER_QUEUES: z
    .string({ error: 'PROVIDER_QUEUES is not set: give a comma list of provider names (e.g. replay,anthropic) or * for all' })
    .min(1, 'PROVIDER_QUEUES is empty: give a comma list of provider names or *')
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
    .refine((list) => list.every((p) => p === '*' || /^[a-z][a-z0-9_-]{0,39}$/.test(p)), 'PROVIDER_QUEUES holds provider names (lowercase letters, digits, _ or -) or *'),
  /** Per queue, unless the provider's `concurrency` in the project file or PROVIDER_CONCURRENCY_<NAME> says otherwise. */
  PROVIDER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /** With PROVIDER_QUEUES=*, how often to look for providers that have queued calls. */
  PROVIDER_DISCOVERY_MS: z.coerce.number().int().positive().default(1000),
  /**
   * The retry backoff, in ms, one retry per entry: the orchestrator reads the same variable and
   * decides the retries (each a call it queues, delayed). Read here only for a 429: how long the
   * provider's queue backs off when the provider sent no retry-after, and not at all once no
   * retry is left. Set it the same for both services.
   */
  PROVIDER_RETRY_DELAYS_MS: z
    .string()
    .default('3000,9000,27000')
    .refine((s) => s.trim() === '' || s.split(',').every((d) => /^\s*\d+\s*$/.test(d)), 'PROVIDER_RETRY_DELAYS_MS is a comma list of milliseconds, e.g. 3000,9000,27000')
    .transform((s) => (s.trim() === '' ? [] : s.split(',').map((d) => Number(d.trim())))),
  /**
   * The test-runner's workspace volume, mounted at the same path: only an engineer in agent
   * mode (a CLI working inside the run's worktree) needs it.
   */
  WORKSPACE_ROOT: z.string().min(1).optional(),
  /** $/Mtok by model (examples/pricing.yaml by default). */
  PRICING_FILE: z.string().min(1).optional(),
});
export type ProviderWorkerEnv = z.infer<typeof ProviderWorkerEnv>;
