import { z } from 'zod';
import { CLI_NAMES } from '../policy/operator-policy.schema';

/**
 * The provider registry: what each live provider-worker serves, as it publishes it to Redis.
 * Provider keys live on the workers, never on the api; the api reads these records to tell a
 * client which provider no worker serves, or whose workers all lack the key, before a run waits
 * on a queue nobody consumes.
 */

/** How often a worker refreshes its record, and how long a record outlives a silent worker. */
export const PROVIDER_REGISTRY_HEARTBEAT_MS = 5_000;
export const PROVIDER_REGISTRY_TTL_MS = 15_000;

/**
 * A Redis key (under QUEUE_PREFIX): one string per live worker, expiring with its TTL. The
 * `{provider-registry}` hash tag keeps every record in one slot of a Redis Cluster, so the api reads
 * them all with one MGET.
 */
export const providerRegistryKey = (prefix: string, workerId: string) => `${prefix}:{provider-registry}:${workerId}`;
export const providerRegistryPattern = (prefix: string) => `${prefix}:{provider-registry}:*`;

/** `*` in providers: the worker consumes every provider's queue that has calls (PROVIDER_QUEUES=*). */
export const EVERY_PROVIDER = '*';

export const CliProbe = z.object({
  /** Whether `<binary> --version` ran at the worker's start. */
  found: z.boolean(),
  /** Its first line, when it printed one. */
  version: z.string().nullable(),
});
export type CliProbe = z.infer<typeof CliProbe>;

export const ProviderWorkerRecord = z.object({
  worker_id: z.string().min(1),
  host: z.string(),
  pid: z.number().int(),
  /** Its PROVIDER_QUEUES: provider names as a project file names them (`agent.<name>` queues), or `*`. */
  providers: z.array(z.string().min(1)),
  /** Per key variable of the operator policy's api_keys: whether it is set on this worker. Never the value. */
  keys: z.record(z.string(), z.boolean()),
  /** Per CLI the policy allows: whether the worker found it, and its version. */
  clis: z.partialRecord(z.enum(CLI_NAMES), CliProbe),
  /** Calls at once per provider queue, unless a project's `concurrency` says otherwise. */
  concurrency: z.number().int().positive(),
  started_at: z.string(),
  heartbeat_at: z.string(),
});
export type ProviderWorkerRecord = z.infer<typeof ProviderWorkerRecord>;
