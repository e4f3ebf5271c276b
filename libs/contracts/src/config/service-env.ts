import { z } from 'zod';

/** Settings every service reads from its environment. */
export const CommonEnv = z.object({
  DATABASE_URL: z
    .string({ error: 'DATABASE_URL is not set: give the Postgres URL, e.g. postgres://postgres@127.0.0.1:5432/roundtable' })
    .url('DATABASE_URL must be a URL like postgres://user@host:5432/db'),
  REDIS_URL: z
    .string({ error: 'REDIS_URL is not set: give the Redis URL, e.g. redis://127.0.0.1:6379' })
    // Not z.url(): a cluster's or Sentinel's URL lists several hosts, which WHATWG URLs refuse. The
    // queues lib parses it whole at connect (parseRedisUrl), naming what is wrong.
    .regex(
      /^rediss?(\+cluster|\+sentinel)?:\/\/\S*$/,
      'REDIS_URL must be a URL like redis://127.0.0.1:6379 (redis+cluster://host:port,host:port for a Redis Cluster, redis+sentinel://host:port/<master> for Sentinel)',
    ),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'QUEUE_PREFIX may hold letters, digits, _ and - only')
    .default('roundtable'),
  /** json: one object per line, for a log pipeline (the default); text: readable lines, for a terminal. */
  LOG_FORMAT: z.enum(['json', 'text'], { error: 'LOG_FORMAT must be json or text' }).default('json'),
});

/** Settings of the queue workers (orchestrator, provider-worker, test-runner) on top of CommonEnv. */
export const WorkerEnv = CommonEnv.extend({
  /** The ops port: /healthz, /readyz, /metrics for kubelet probes and Prometheus. 0: any free port (logged). */
  HEALTH_PORT: z.coerce
    .number({ error: 'HEALTH_PORT must be a TCP port number, e.g. 9464' })
    .int('HEALTH_PORT must be a whole number')
    .min(0, 'HEALTH_PORT must be between 0 and 65535')
    .max(65535, 'HEALTH_PORT must be between 0 and 65535')
    .default(9464),
});

export class ServiceEnvError extends Error {
  readonly code = 'INVALID_ENVIRONMENT';
}

/** Parses a service's environment once at start; the error names each variable and the fix. */
export function parseServiceEnv<S extends z.ZodType>(service: string, schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  - ${i.path.join('.') || '(env)'}: ${i.message}`);
  throw new ServiceEnvError(`${service}: bad environment\n${lines.join('\n')}`);
}
