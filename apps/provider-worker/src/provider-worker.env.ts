import { z } from 'zod';
import { CommonEnv } from '@roundtable/contracts';

export const ProviderWorkerEnv = CommonEnv.extend({
  PROVIDER_QUEUES: z
    .string({ error: 'PROVIDER_QUEUES is not set: give a comma list of provider names (e.g. replay,anthropic) or * for all' })
    .min(1, 'PROVIDER_QUEUES is empty: give a comma list of provider names or *')
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
    .refine((list) => list.every((p) => p === '*' || /^[a-z][a-z0-9_-]{0,39}$/.test(p)), 'PROVIDER_QUEUES holds provider names (lowercase letters, digits, _ or -) or *'),
  PROVIDER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /** With PROVIDER_QUEUES=*, how often to look for providers that have queued calls. */
  PROVIDER_DISCOVERY_MS: z.coerce.number().int().positive().default(1000),
});
export type ProviderWorkerEnv = z.infer<typeof ProviderWorkerEnv>;
