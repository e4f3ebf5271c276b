import { z } from 'zod';
import { WorkerEnv } from '@roundtable/contracts';

export const TestRunnerEnv = WorkerEnv.extend({
  WORKSPACE_ROOT: z
    .string({ error: 'WORKSPACE_ROOT is not set: give the directory where run workspaces are created (e.g. /var/lib/roundtable/workspaces)' })
    .min(1, 'WORKSPACE_ROOT is empty'),
  TEST_RUNNER_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** The sandbox image when a project config names none; must already be on the engine (scripts/build-sandbox-image.sh). */
  SANDBOX_IMAGE: z.string().min(1).default('roundtable/sandbox:latest'),
  /** The Docker engine; unset means the default socket, /var/run/docker.sock. */
  DOCKER_HOST: z
    .string()
    .regex(/^(unix|tcp):\/\//, 'DOCKER_HOST must be unix:///path/to/docker.sock or tcp://host:port')
    .optional(),
  /**
   * Whether /readyz needs the Docker engine to answer. Docker is every run's runner unless its config
   * says `sandbox.runner: process`, so a test-runner without an engine cannot serve a default run: it
   * is not ready. A deployment that only runs process-runner projects sets false.
   */
  READYZ_DOCKER: z
    .enum(['true', 'false'], { error: 'READYZ_DOCKER must be true or false' })
    .default('true')
    .transform((v) => v === 'true'),
});
export type TestRunnerEnv = z.infer<typeof TestRunnerEnv>;
