import { z } from 'zod';
import { CommonEnv } from '@roundtable/contracts';

export const ApiEnv = CommonEnv.extend({
  PORT: z.coerce
    .number({ error: 'PORT must be a TCP port number, e.g. 3000' })
    .int('PORT must be a whole number')
    .min(0, 'PORT must be between 0 and 65535')
    .max(65535, 'PORT must be between 0 and 65535')
    .default(3000),
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
});
export type ApiEnv = z.infer<typeof ApiEnv>;
