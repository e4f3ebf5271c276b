import { mkdir, realpath, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { GitCommandError, runGit } from './git-command';
import { RepoUnusableError } from './repo-unusable.error';
import { runDirectory } from './workspace';

/**
 * The commit an experiment was preregistered at is not in its repository any more (history
 * rewritten, a branch deleted and collected). The experiment cannot be run as it was registered;
 * running it at another commit would be another experiment. A RepoUnusableError: recorded, not retried.
 */
export class PinnedCommitMissingError extends RepoUnusableError {
  constructor(
    repo: string,
    readonly commit: string,
  ) {
    const reason = `the pinned commit ${commit} is not in ${repo} any more (rewritten history?); a changed copy of the experiment is a new experiment`;
    super(repo, reason);
    this.message = reason;
    this.name = 'PinnedCommitMissingError';
  }
}

/**
 * Makes `<root>/<runId>/experiment`, a detached `git worktree` of `repo` at `commit` (an
 * experiment's pinned commit), and answers its path. Like prepareRepoWorkspace's worktree, the
 * repository's working tree, index and branches are never touched; it gains the worktree's
 * registration under `.git/worktrees/`. A repository that moved on since (HEAD past the commit)
 * is fine: only the commit has to be there.
 *
 * Idempotent: a worktree already registered at that path and that commit is answered as it is.
 * Every git command names the repository (`-C repo`), never the worktree, whose `.git` file the
 * command in the sandbox can rewrite. The sandbox gets write access to it the way it gets the
 * build's workspace: DockerTestRunner grants the mounted directory to the sandbox's group
 * (grantWorkspaceToSandbox) before each run.
 */
export async function prepareCommitWorktree(root: string, runId: string, repo: string, commit: string): Promise<string> {
  const runDir = runDirectory(root, runId);
  const wt = path.join(runDir, 'experiment');
  const origin = await gitRepository(repo);
  const full = await resolveCommit(origin, repo, commit);

  if (await registeredAt(origin, wt, full)) return wt;
  await mkdir(runDir, { recursive: true });
  // Not registered at this commit: a leftover of an attempt that died half way, or another commit's.
  await rm(wt, { recursive: true, force: true });
  // --force: the path may still be registered by that earlier attempt.
  await runGit(['-C', origin, 'worktree', 'add', '--force', '--detach', wt, full]);
  return wt;
}

async function gitRepository(repo: string): Promise<string> {
  if (!path.isAbsolute(repo)) throw new RepoUnusableError(repo, 'is a relative path; the test-runner needs an absolute one');
  let origin: string;
  try {
    origin = await realpath(repo);
    if (!(await stat(origin)).isDirectory()) throw new RepoUnusableError(repo, 'is not a directory');
  } catch (e) {
    if (e instanceof RepoUnusableError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new RepoUnusableError(repo, 'does not exist on the test-runner');
    throw e;
  }
  try {
    await runGit(['-C', origin, 'rev-parse', '--git-dir']);
  } catch (e) {
    if (e instanceof GitCommandError && /not a git repository/i.test(e.stderr)) throw new RepoUnusableError(repo, 'is not a git repository: an experiment runs at a commit of one');
    if (e instanceof GitCommandError) throw new RepoUnusableError(repo, `git refuses it: ${e.stderr.trim()}`);
    throw e;
  }
  return origin;
}

/** The full id of `commit` in the repository, or a PinnedCommitMissingError. */
async function resolveCommit(origin: string, repo: string, commit: string): Promise<string> {
  if (!/^[0-9a-f]{7,40}$/.test(commit)) throw new RepoUnusableError(repo, `${JSON.stringify(commit)} is not a commit id (7 to 40 hex digits)`);
  try {
    return (await runGit(['-C', origin, 'rev-parse', '--verify', '--quiet', `${commit}^{commit}`])).stdout.trim();
  } catch (e) {
    // --quiet: exit 1 and no message for an unknown (or ambiguous, or not a commit) id.
    if (e instanceof GitCommandError) throw new PinnedCommitMissingError(repo, commit);
    throw e;
  }
}

/** Whether `wt` is registered as a worktree of the repository, at `commit`, and still there. */
async function registeredAt(origin: string, wt: string, commit: string): Promise<boolean> {
  const listed = (await runGit(['-C', origin, 'worktree', 'list', '--porcelain'])).stdout;
  const wtReal = await realpath(wt).catch(() => null);
  if (!wtReal) return false;
  for (const entry of listed.split('\n\n')) {
    const lines = entry.split('\n');
    const at = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    const head = lines.find((l) => l.startsWith('HEAD '))?.slice('HEAD '.length);
    if (!at || (at !== wt && at !== wtReal)) continue;
    return head === commit && !lines.includes('prunable') && (await realpath(at).catch(() => null)) === wtReal;
  }
  return false;
}
