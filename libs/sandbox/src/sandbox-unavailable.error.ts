/**
 * The container sandbox cannot run tests here (no Docker engine, or no sandbox image). Not a
 * bug to retry and not a reason to fall back to running model-written code unsandboxed: the
 * test-runner records it on the run, with what to do about it.
 */
export class SandboxUnavailableError extends Error {
  readonly code = 'SANDBOX_UNAVAILABLE' as const;

  constructor(message: string) {
    super(message);
    this.name = 'SandboxUnavailableError';
  }
}
