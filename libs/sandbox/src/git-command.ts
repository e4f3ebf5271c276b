import { execa } from 'execa';

/**
 * Settings every git command gets on the command line. The repository's own config still
 * applies, but nothing of it may run code or stop a commit: a user's pre-commit hook needing a
 * venv, a post-checkout hook, commit signing needing an agent, an auto-gc repacking their
 * object store. Fixed identity: the commits are the run's, not a person's.
 */
const GIT_SETTINGS: readonly string[] = [
  'user.name=roundtable',
  'user.email=roundtable@localhost',
  'core.hooksPath=/dev/null',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'core.quotePath=false',
  'advice.detachedHead=false',
  'init.defaultBranch=main',
].flatMap((s) => ['-c', s]);

/**
 * Built from nothing, never from this process's environment: GIT_DIR, GIT_WORK_TREE or
 * GIT_INDEX_FILE inherited from a parent would point every command at another repository.
 * No system or global config either: a runner's ~/.gitconfig must not change what a run does.
 * GIT_OPTIONAL_LOCKS=0 keeps read-only commands (status) from refreshing a user's index.
 */
export function gitEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return {
    PATH: base.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: '/nonexistent',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
  };
}

/** git exited non-zero; stderr says why. */
export class GitCommandError extends Error {
  readonly code = 'GIT_FAILED' as const;

  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim() || '(no message)'}`);
    this.name = 'GitCommandError';
  }
}

/** No git binary on this machine. */
export class GitUnavailableError extends Error {
  readonly code = 'GIT_UNAVAILABLE' as const;

  constructor() {
    super('git is not installed on the test-runner (not found on PATH)');
    this.name = 'GitUnavailableError';
  }
}

export interface GitRunOptions {
  /** Stop reading stdout after this many bytes and report it cut short (a diff can be huge). */
  maxStdoutBytes?: number;
  timeoutMs?: number;
  /**
   * Exit codes besides 0 that are an answer, not a failure: `git merge-tree --write-tree` exits 1
   * for a conflict and prints the conflicting paths on stdout, which a GitCommandError would drop.
   */
  answerExitCodes?: readonly number[];
}

export interface GitOutput {
  stdout: string;
  /** stdout went past maxStdoutBytes: what was read is kept, the rest dropped. */
  truncated: boolean;
  /** 0, or one of the answerExitCodes asked for. */
  exitCode: number;
}

/** Enough of git's complaint for the error message. */
const STDERR_LIMIT = 16 * 1024;

/** Runs git without a shell; arguments are never interpreted by anything but git. */
export async function runGit(args: readonly string[], opts: GitRunOptions = {}): Promise<GitOutput> {
  const result = await execa('git', [...GIT_SETTINGS, ...args], {
    env: gitEnv(),
    extendEnv: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 120_000,
    // Bytes, not characters: maxBuffer counts in the encoding's unit. Past it execa stops reading
    // and git ends on a broken pipe; stderr keeps its default bound (git never says much).
    encoding: 'buffer',
    maxBuffer: { stdout: opts.maxStdoutBytes ?? 16 * 1024 * 1024 },
    stripFinalNewline: false,
    reject: false,
  });
  const cause = result.cause as NodeJS.ErrnoException | undefined;
  if (result.exitCode === undefined && result.signal === undefined && cause?.syscall?.startsWith('spawn')) {
    throw cause.code === 'ENOENT' ? new GitUnavailableError() : cause;
  }
  // Cut short by us for reading enough is success; killed by the timeout is not.
  if (result.exitCode === 0 || result.isMaxBuffer) return { stdout: Buffer.from(result.stdout).toString('utf8'), truncated: result.isMaxBuffer, exitCode: result.exitCode ?? 0 };
  if (result.exitCode !== undefined && opts.answerExitCodes?.includes(result.exitCode)) {
    return { stdout: Buffer.from(result.stdout).toString('utf8'), truncated: false, exitCode: result.exitCode };
  }
  throw new GitCommandError(args, result.exitCode ?? null, Buffer.from(result.stderr).subarray(0, STDERR_LIMIT).toString('utf8'));
}

/** `git --git-dir=… --work-tree=…`: never found by walking up from a directory the tests can write. */
export function workspaceGitArgs(gitDir: string, workTree: string, excludesFile: string): string[] {
  return [`--git-dir=${gitDir}`, `--work-tree=${workTree}`, '-c', `core.excludesFile=${excludesFile}`];
}
