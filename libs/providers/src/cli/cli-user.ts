import type { OperatorPolicy } from '@roundtable/contracts';

/**
 * Which user a CLI child runs as. A child's own environment is stripped of the worker's
 * secrets (cli-env.ts), but its parent's is not: any process of the worker's uid can read
 * /proc/<worker>/environ and /proc/<worker>/mem. So a worker running as root gives each CLI
 * the policy's `cli.run_as` user (no capabilities, another uid: both files answer EACCES);
 * a worker that is not root cannot, and runs CLIs as itself only when the operator accepted
 * that (`cli.allow_same_user: true`).
 */
export type CliUser = { kind: 'run_as'; uid: number; gid: number } | { kind: 'same_user'; uid: number };

export type CliUserDecision = { ok: true; user: CliUser } | { ok: false; message: string };

const POLICY = 'the operator policy (ROUNDTABLE_POLICY)';

/** The decision for a worker running as `processUid` (process.getuid()). */
export function cliUserFor(policy: OperatorPolicy, processUid: number): CliUserDecision {
  if (processUid === 0) return { ok: true, user: { kind: 'run_as', uid: policy.cli.run_as.uid, gid: policy.cli.run_as.gid } };
  if (policy.cli.allow_same_user) return { ok: true, user: { kind: 'same_user', uid: processUid } };
  return {
    ok: false,
    message:
      `this provider-worker runs as uid ${processUid}, not root, so it cannot run a CLI as another user (cli.run_as), and a CLI running as the worker's own user ` +
      `could read the worker's secrets from /proc/<pid>/environ; ${POLICY} refuses that (cli.allow_same_user: false): run the worker as root, or set cli.allow_same_user: true to accept it`,
  };
}

/** The line the worker logs at start: which mode its CLIs run in, and why. */
export function describeCliUser(decision: CliUserDecision): string {
  if (!decision.ok) return `CLI providers are refused: ${decision.message}`;
  const u = decision.user;
  return u.kind === 'run_as'
    ? `CLI children run as uid ${u.uid} gid ${u.gid} (cli.run_as): they cannot read this worker's environment or memory`
    : `CLI children run as this worker's own uid ${u.uid} (cli.allow_same_user: true): they CAN read this worker's environment (/proc/<pid>/environ), its database and Redis URLs and API keys included`;
}
