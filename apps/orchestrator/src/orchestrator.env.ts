import { z } from 'zod';
import { WorkerEnv } from '@roundtable/contracts';

export const OrchestratorEnv = WorkerEnv.extend({
  PROMPTS_DIR: z.string().optional(),
  /** How old an unsent outbox row must be before the sweeper re-sends it. */
  OUTBOX_SWEEP_MS: z.coerce.number().int().positive().default(5000),
  ORCHESTRATOR_CONCURRENCY: z.coerce.number().int().positive().default(8),
});
export type OrchestratorEnv = z.infer<typeof OrchestratorEnv>;
