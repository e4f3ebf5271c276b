import { z } from 'zod';

/** Produced by the test-runner, never by a model. */
export const TestResult = z.object({
  command: z.string(),
  exit_code: z.number().int(),
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  errors: z.number().int().min(0),
  duration_s: z.number().min(0),
  stdout_tail: z.string(),
  timed_out: z.boolean().default(false),
});
export type TestResult = z.infer<typeof TestResult>;
