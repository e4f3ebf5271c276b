import type { ConfigIssue } from '@roundtable/contracts';

/**
 * What a run asks of the test-runner is outside the operator's policy (a repo outside
 * repos.roots, tests outside the sandbox, a limit over its maximum, an image not on its list).
 * The api refuses such a submission already; this is the worker's own check, for a row written
 * around the api. Retrying cannot help: the op records it, each issue naming the field and the
 * policy line that would have to change.
 */
export class PolicyRefusedError extends Error {
  readonly code = 'POLICY_REFUSED' as const;

  constructor(readonly issues: readonly ConfigIssue[]) {
    super(`refused by the test-runner: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'PolicyRefusedError';
  }
}
