import { z } from 'zod';
import { CliProbe, ProviderWorkerRecord } from '../providers/provider-worker-record.schema';

/** GET /v1/providers: the provider registry as the api reads it (own file: the route's reply, typed and documented from here). */

export const QueueDepth = z.object({ waiting: z.number().int(), active: z.number().int(), delayed: z.number().int() });

export const ProviderAvailability = z.object({
  name: z.string().describe('the provider name as a project file names it (its queue is agent.<name>); * for workers that serve every provider'),
  workers: z.array(z.string()).describe('ids of the live provider-workers serving it (those with PROVIDER_QUEUES=* included)'),
  keys: z.record(z.string(), z.boolean()).describe('per key variable of the operator policy: set on at least one of those workers (never a value)'),
  clis: z.record(z.string(), CliProbe).describe('per CLI: found on at least one of those workers, and a version'),
  concurrency: z.number().int().describe('calls at once, summed over its workers (a project file\'s concurrency may lower it)'),
  queue: QueueDepth.nullable().describe('agent.<name> jobs waiting, active and delayed; null for *'),
});

export const ProvidersReply = z.object({
  providers: z.array(ProviderAvailability),
  workers: z.array(ProviderWorkerRecord),
});
export type ProvidersReply = z.infer<typeof ProvidersReply>;
