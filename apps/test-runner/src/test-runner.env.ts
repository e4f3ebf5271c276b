import { z } from 'zod';
import { CommonEnv } from '@roundtable/contracts';

export const TestRunnerEnv = CommonEnv.extend({
  WORKSPACE_ROOT: z
    .string({ error: 'WORKSPACE_ROOT is not set: give the directory where run workspaces are created (e.g. /var/lib/roundtable/workspaces)' })
    .min(1, 'WORKSPACE_ROOT is empty'),
  TEST_RUNNER_CONCURRENCY: z.coerce.number().int().positive().default(2),
});
export type TestRunnerEnv = z.infer<typeof TestRunnerEnv>;
