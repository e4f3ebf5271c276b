/**
 * An experiment op the test-runner will not run (issue 24): no such experiment, a stored
 * preregistration that no longer hashes to its locked hash, an op queued for another hash, or an
 * experiment that already has a result. Running it anyway would produce a result the
 * preregistration does not vouch for; retrying cannot help, so the op records it.
 */
export class ExperimentRefusedError extends Error {
  readonly code = 'EXPERIMENT_REFUSED' as const;

  constructor(
    readonly experimentId: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'ExperimentRefusedError';
  }
}
