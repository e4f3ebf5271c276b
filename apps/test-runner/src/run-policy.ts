import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { AUTONOMOUS_APPROVER, autonomyPolicyIssues, mergePolicyIssues, repoPolicyIssues, SandboxConfig, sandboxPolicyIssues, type OperatorPolicy } from '@roundtable/contracts';
import { PolicyRefusedError } from './policy-refused.error';

/** What the checks need from the runners: the SANDBOX_IMAGE default and the engine's CPU count. */
export interface SandboxFacts {
  readonly defaultImage: string;
  /** The Docker engine's NCPU; undefined when the engine does not answer (the run then fails on its own). */
  engineCpus(): Promise<number | undefined>;
}

/**
 * The test-runner's own check of what a run asks for, against the policy it read at start.
 * The api checked the submission already; the run row is read back from Postgres, which
 * anything with the database's password can write, so the worker that acts checks again.
 */
export class RunPolicy {
  constructor(
    readonly policy: OperatorPolicy,
    private readonly facts: SandboxFacts,
  ) {}

  /**
   * The repository's real path (symlinks resolved) when it lies under repos.roots; a
   * PolicyRefusedError otherwise. A path that cannot be resolved (missing, unreadable) is judged
   * as written, so a path outside the roots is refused whether or not it exists there, and one
   * inside goes on to be reported missing by the workspace itself. A relative path is left to
   * prepareRepoWorkspace, which refuses it.
   */
  async admitRepo(repo: string): Promise<string> {
    if (!path.isAbsolute(repo)) return repo;
    const real = await realpath(repo).catch(() => path.resolve(repo));
    const issues = repoPolicyIssues(real, this.policy);
    if (issues.length === 0) return real;
    const resolved = real !== path.resolve(repo) ? ' (symlinks resolved)' : '';
    throw new PolicyRefusedError(issues.map((i) => ({ ...i, message: `${repo}: ${i.message}${resolved}` })));
  }

  /**
   * Why a run branch may not be merged into `origin` (the original repository, its real path):
   * outside the policy's repos.merge_roots, or approved by no person (autonomy 3) where the policy
   * does not allow that. Null when it may. Checked here again because the api's check was made on
   * its own machine, at submission, under the policy it had then.
   */
  async mergeRefusal(origin: string, approvedBy: string): Promise<string | null> {
    const real = await realpath(origin).catch(() => path.resolve(origin));
    const issues = mergePolicyIssues(real, this.policy);
    if (approvedBy === AUTONOMOUS_APPROVER) issues.push(...autonomyPolicyIssues(3, this.policy));
    return issues.length ? issues.map((i) => i.message).join('; ') : null;
  }

  /**
   * The run's sandbox as stored (parsed again: a row written around the api may hold anything)
   * and the test run's timeout, against the policy's runner, images and limits and the engine's
   * CPUs. Answers the sandbox to run with; a PolicyRefusedError otherwise.
   */
  async admitTestRun(storedSandbox: unknown, timeoutS: number): Promise<SandboxConfig> {
    const parsed = SandboxConfig.safeParse(storedSandbox);
    if (!parsed.success) {
      throw new PolicyRefusedError(parsed.error.issues.map((i) => ({ path: ['sandbox', ...i.path].join('.'), message: i.message })));
    }
    const sandbox = parsed.data;
    // Only a docker run that names cpus needs the engine asked.
    const engineCpus = sandbox.runner === 'docker' && sandbox.cpus !== undefined ? await this.facts.engineCpus() : undefined;
    const issues = sandboxPolicyIssues({ sandbox, test_timeout_s: timeoutS }, this.policy, { defaultImage: this.facts.defaultImage, engineCpus });
    if (issues.length) throw new PolicyRefusedError(issues);
    return sandbox;
  }
}
