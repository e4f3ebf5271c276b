import { z } from 'zod';

/**
 * Where the test command runs. `docker` (the default) is the sandbox: a throw-away container
 * with no network and the workspace as its only writable path. `process` runs it as a plain
 * subprocess: containment without a sandbox, for trusted projects or machines without Docker,
 * and reported as such. Written either as an object or as the bare runner name:
 *
 *   sandbox: process
 *   sandbox: { runner: docker, image: my/sandbox:py312, memory_mb: 2048, cpus: 2, pids: 512 }
 *
 * Unset limits fall back to the test-runner's defaults (image: SANDBOX_IMAGE).
 */
const SandboxRunner = z.enum(['docker', 'process'], { error: 'use docker (the sandbox) or process (no sandbox)' });

const SandboxObject = z
  .object({
    runner: SandboxRunner.default('docker'),
    /** A local image (the engine need not be able to pull): scripts/build-sandbox-image.sh builds the default one. */
    image: z.string().min(1).optional(),
    memory_mb: z.number().int().min(64).max(1024 * 1024).optional(),
    cpus: z.number().positive().max(1024).optional(),
    pids: z.number().int().min(16).max(1_000_000).optional(),
  })
  .strict()
  .refine(
    (s) => s.runner === 'docker' || (s.image === undefined && s.memory_mb === undefined && s.cpus === undefined && s.pids === undefined),
    { message: 'image, memory_mb, cpus and pids apply to the docker runner only; sandbox.runner is process' },
  );

// The shorthand becomes the object before validation, so `sandbox: podman` is reported as a
// bad runner name rather than as matching neither form.
export const SandboxConfig = z
  .preprocess((v) => (typeof v === 'string' ? { runner: v } : v), SandboxObject)
  .default({ runner: 'docker' });
export type SandboxConfig = z.infer<typeof SandboxConfig>;
export type SandboxRunnerKind = z.infer<typeof SandboxRunner>;
