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
});
export type ApiEnv = z.infer<typeof ApiEnv>;
