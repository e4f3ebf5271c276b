/**
 * The project's `repo` cannot become a workspace here (missing on this machine, a bare
 * repository, refused by git's ownership check, git not installed …). Retrying will not help;
 * the test-runner records the reason on the run.
 */
export class RepoUnusableError extends Error {
  readonly code = 'REPO_UNUSABLE' as const;

  constructor(
    readonly repo: string,
    readonly reason: string,
  ) {
    super(`repo ${repo}: ${reason}`);
    this.name = 'RepoUnusableError';
  }
}
