/**
 * The Docker engine refused the container a run asked for (a 4xx on create or start: more CPUs
 * than it has, a limit it cannot set, a malformed option). The run's request, not the machine,
 * is at fault, so retrying cannot help: the test-runner records it as a failed test run with
 * the engine's own words, instead of leaving the run waiting in TEST.
 */
export class SandboxRefusedError extends Error {
  readonly code = 'SANDBOX_REFUSED' as const;

  constructor(
    readonly statusCode: number,
    readonly engineMessage: string,
    readonly step: 'create' | 'start',
  ) {
    super(`the Docker engine refused to ${step} the sandbox container (HTTP ${statusCode}): ${engineMessage}`);
    this.name = 'SandboxRefusedError';
  }
}
