import { constants } from 'node:fs';
import { access, cp, lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { GitCommandError, GitUnavailableError, runGit, workspaceGitArgs } from './git-command';
import { RepoUnusableError } from './repo-unusable.error';
import { clearSetIdBits } from './setid-bits';
import { runDirectory } from './workspace';

/**
 * Where a run's workspace came from: a `git worktree` of the project's repository, a copy of a
 * plain directory, or nothing (greenfield).
 */
export type WorkspaceSource = 'worktree' | 'copy' | 'empty';

export interface WorkspaceGit {
  /**
   * The git directory every command names explicitly: the worktree's admin directory inside the
   * repository's `.git`, or `<root>/<runId>/git` for a copy or an empty workspace. Never found
   * through the workspace's own `.git` file, which the tests in the sandbox can rewrite.
   */
  gitDir: string;
  /** The cache exclusions, beside the workspace (`core.excludesFile`). */
  excludesFile: string;
  /** `roundtable/<runId>`. */
  branch: string;
  /** What the engineer's work is diffed against. */
  baseCommit: string;
}

export interface RepoWorkspace {
  /** `<root>/<runId>/workspace`: what the engineer writes and the sandbox mounts. */
  path: string;
  source: WorkspaceSource;
  /** The repository or directory it was made from; null for an empty workspace. */
  origin: string | null;
  /** Null only when git is not installed: a plain directory then, without commits or diffs. */
  git: WorkspaceGit | null;
  /** Things the user should know about how the workspace was made (shown in the op result). */
  notes: string[];
}

/**
 * Left out of commits (and of copies): written by the tests in the sandbox or by tools, never
 * the engineer's work. Patterns are relative to the workspace, `**` so nested ones match too.
 */
export const CACHE_EXCLUDES: readonly string[] = ['__pycache__/', '.pytest_cache/', '**/node_modules/.cache/', '*.pyc', '.roundtable/'];

const META_FILE = 'workspace.json';

/**
 * Makes `<root>/<runId>/workspace` from `repoPath`:
 *
 * - the top of a git work tree with at least one commit: `git worktree add -b roundtable/<runId>`
 *   at the repository's HEAD commit. The repository's working tree, index and checked-out branch
 *   are never touched; what it gains is the branch ref, the worktree registration under
 *   `.git/worktrees/`, and the objects of the run's commits. Both stay after the run so the
 *   branch can be inspected and merged; `git worktree remove <workspace>` and
 *   `git branch -D roundtable/<runId>` undo them (`git worktree prune` once the workspace
 *   directory is gone). Uncommitted changes in the repository are not in the workspace.
 * - any other directory (plain, a subdirectory of a repository, a repository without commits):
 *   copied without `.git` and caches, then `git init` and one base commit, so diffs work the same way;
 * - no `repoPath`: an empty directory, `git init` and an empty base commit.
 *
 * The cache exclusions go in a file beside the workspace passed as `core.excludesFile`, not in
 * `info/exclude`: a worktree shares that file with the user's repository.
 *
 * Idempotent: once made, the same workspace is returned (from `<root>/<runId>/workspace.json`,
 * written last). A leftover of an attempt that died half way is rebuilt; an empty workspace is
 * never wiped.
 */
export async function prepareRepoWorkspace(root: string, runId: string, repoPath?: string | null): Promise<RepoWorkspace> {
  const runDir = runDirectory(root, runId);
  const existing = await openRepoWorkspace(root, runId);
  if (existing) return existing;
  await mkdir(runDir, { recursive: true });

  const ws = path.join(runDir, 'workspace');
  const excludesFile = path.join(runDir, 'exclude');
  await writeFile(excludesFile, `${CACHE_EXCLUDES.join('\n')}\n`);
  const hasGit = await gitInstalled();
  const branch = `roundtable/${runId}`;

  let made: RepoWorkspace;
  if (!repoPath) {
    made = await makeEmpty(ws, path.join(runDir, 'git'), hasGit, { branch, excludesFile });
  } else {
    const origin = await usableDirectory(repoPath, runDir);
    const kind = await classify(origin, hasGit);
    made =
      kind.type === 'worktree'
        ? await makeWorktree(origin, ws, { branch, excludesFile, notes: kind.notes })
        : await makeCopy(origin, ws, path.join(runDir, 'git'), hasGit, { branch, excludesFile, notes: kind.notes });
  }

  const metaFile = path.join(runDir, META_FILE);
  await writeFile(`${metaFile}.tmp`, JSON.stringify(made, null, 2));
  await rename(`${metaFile}.tmp`, metaFile);
  return made;
}

/** The workspace prepareRepoWorkspace made for this run, or null (none yet, or made before git workspaces). */
export async function openRepoWorkspace(root: string, runId: string): Promise<RepoWorkspace | null> {
  const runDir = runDirectory(root, runId);
  let text: string;
  try {
    text = await readFile(path.join(runDir, META_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const meta = JSON.parse(text) as RepoWorkspace;
  if (meta.path !== path.join(runDir, 'workspace')) throw new Error(`${runDir}/${META_FILE} names another workspace (${meta.path})`);
  return meta;
}

/**
 * The PATHs on which git was found: one `git --version` (a spawn, milliseconds of CPU on a
 * small machine) per process and PATH, not one per workspace.
 */
const gitFoundOn = new Set<string | undefined>();

async function gitInstalled(): Promise<boolean> {
  if (gitFoundOn.has(process.env.PATH)) return true;
  try {
    await runGit(['--version']);
    gitFoundOn.add(process.env.PATH);
    return true;
  } catch (e) {
    if (e instanceof GitUnavailableError) return false;
    throw e;
  }
}

async function usableDirectory(repoPath: string, runDir: string): Promise<string> {
  if (!path.isAbsolute(repoPath)) throw new RepoUnusableError(repoPath, 'is a relative path; the test-runner needs an absolute one');
  let origin: string;
  try {
    origin = await realpath(repoPath);
    if (!(await stat(origin)).isDirectory()) throw new RepoUnusableError(repoPath, 'is not a directory');
    await access(origin, constants.R_OK | constants.X_OK);
  } catch (e) {
    if (e instanceof RepoUnusableError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new RepoUnusableError(repoPath, 'does not exist on the test-runner');
    if (code === 'EACCES' || code === 'EPERM') throw new RepoUnusableError(repoPath, 'is not readable by the test-runner');
    throw e;
  }
  // A workspace inside its own source would be copied into itself, or show up as untracked
  // files in the user's working tree.
  const runDirReal = path.join(await realpath(path.dirname(runDir)), path.basename(runDir));
  if (isWithin(origin, runDirReal)) {
    throw new RepoUnusableError(repoPath, `contains the workspace root (${path.dirname(runDir)}); set WORKSPACE_ROOT outside it`);
  }
  return origin;
}

function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

type Kind = { type: 'worktree' | 'copy'; notes: string[] };

async function classify(origin: string, hasGit: boolean): Promise<Kind> {
  if (!hasGit) {
    const dotGit = await lstat(path.join(origin, '.git')).catch(() => null);
    if (dotGit) throw new RepoUnusableError(origin, 'is a git repository, but git is not installed on the test-runner');
    return { type: 'copy', notes: ['git is not installed on the test-runner: no commits or diffs for this run'] };
  }
  let inside: string;
  try {
    inside = (await runGit(['-C', origin, 'rev-parse', '--is-inside-work-tree'])).stdout.trim();
  } catch (e) {
    if (e instanceof GitCommandError && /not a git repository/i.test(e.stderr)) return { type: 'copy', notes: [] };
    // "dubious ownership" above all: git's own guard against a repository owned by someone else.
    if (e instanceof GitCommandError) throw new RepoUnusableError(origin, `git refuses it: ${e.stderr.trim()}`);
    throw e;
  }
  if (inside !== 'true') throw new RepoUnusableError(origin, 'is a bare repository or a .git directory; point repo at a checkout');

  const top = await realpath((await runGit(['-C', origin, 'rev-parse', '--show-toplevel'])).stdout.trim());
  if (top !== origin) {
    return { type: 'copy', notes: [`${origin} is a subdirectory of the git repository ${top}: copied, not checked out as a worktree`] };
  }
  const head = await runGit(['-C', origin, 'rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => null);
  if (!head) return { type: 'copy', notes: [`${origin} is a git repository without commits: its files were copied`] };

  const notes: string[] = [];
  const dirty = (await runGit(['-C', origin, 'status', '--porcelain', '--untracked-files=no'])).stdout.split('\n').filter(Boolean).length;
  if (dirty > 0) notes.push(`${dirty} uncommitted change(s) in ${origin} are not in the workspace: it starts at the HEAD commit`);
  return { type: 'worktree', notes };
}

interface MakeOptions {
  branch: string;
  excludesFile: string;
  notes?: string[];
}

async function makeWorktree(origin: string, ws: string, opts: MakeOptions): Promise<RepoWorkspace> {
  // No record of this workspace, yet a directory: a prepare that died half way. Nothing of the
  // engineer's can be in it (apply needs the record), so it is made again.
  await rm(ws, { recursive: true, force: true });
  const existing = await runGit(['-C', origin, 'rev-parse', '--verify', '--quiet', `refs/heads/${opts.branch}^{commit}`]).catch(() => null);
  let baseCommit: string;
  if (existing) {
    // Made by that earlier attempt, before anything was committed on it.
    baseCommit = existing.stdout.trim();
    await runGit(['-C', origin, 'worktree', 'add', '--force', ws, opts.branch]);
  } else {
    baseCommit = (await runGit(['-C', origin, 'rev-parse', '--verify', 'HEAD^{commit}'])).stdout.trim();
    // --force: the path may still be registered by that earlier attempt.
    await runGit(['-C', origin, 'worktree', 'add', '--force', '-b', opts.branch, ws, baseCommit]);
  }
  // Read once, right after git wrote it and before any test could touch it.
  const gitDir = (await runGit(['-C', ws, 'rev-parse', '--absolute-git-dir'])).stdout.trim();
  return {
    path: ws,
    source: 'worktree',
    origin,
    git: { gitDir, excludesFile: opts.excludesFile, branch: opts.branch, baseCommit },
    notes: opts.notes ?? [],
  };
}

async function makeCopy(origin: string, ws: string, gitDir: string, hasGit: boolean, opts: MakeOptions): Promise<RepoWorkspace> {
  await rm(ws, { recursive: true, force: true });
  await rm(gitDir, { recursive: true, force: true });
  const leftOut: string[] = [];
  await cp(origin, ws, {
    recursive: true,
    // Links are copied as written: Node would otherwise rewrite relative ones to absolute
    // paths into the original directory. Reads and writes refuse links that leave the workspace.
    verbatimSymlinks: true,
    filter: (src) => keepInCopy(origin, src, leftOut),
  });
  // cp keeps modes: a setuid file of the source would be a setuid file owned by the test-runner's user.
  const sweep = await clearSetIdBits(ws);
  const git = hasGit ? await initWithBaseCommit(ws, gitDir, opts, `roundtable: base of the run (copy of ${origin})`) : null;
  const notes = [...(opts.notes ?? [])];
  if (leftOut.length) notes.push(leftOutNote(leftOut.sort()));
  if (sweep.cleared.length) notes.push(`the setuid/setgid bits of ${sweep.cleared.length} copied file(s) were cleared: ${sweep.cleared.sort().slice(0, 20).join(', ')}`);
  return { path: ws, source: 'copy', origin, git, notes };
}

/** How many left-out paths a note names; the count is always whole. */
const LEFT_OUT_NAMED = 20;

function leftOutNote(paths: string[]): string {
  const named = paths.slice(0, LEFT_OUT_NAMED).join(', ');
  const more = paths.length > LEFT_OUT_NAMED ? ` and ${paths.length - LEFT_OUT_NAMED} more` : '';
  return (
    `${paths.length} path(s) not readable by others in the source were left out of the copy (the sandbox gets only what the owner lets any user read; ` +
    `chmod o+r a file, o+rx a directory, to include it): ${named}${more}`
  );
}

async function makeEmpty(ws: string, gitDir: string, hasGit: boolean, opts: MakeOptions): Promise<RepoWorkspace> {
  await mkdir(ws, { recursive: true });
  const git = hasGit ? await initWithBaseCommit(ws, gitDir, opts, 'roundtable: empty base of the run') : null;
  const notes = hasGit ? [] : ['git is not installed on the test-runner: no commits or diffs for this run'];
  return { path: ws, source: 'empty', origin: null, git, notes };
}

/** Safe to repeat: `git init` on an existing repository only re-initialises it. */
async function initWithBaseCommit(ws: string, gitDir: string, opts: MakeOptions, message: string): Promise<WorkspaceGit> {
  // --template=: no sample hooks; --separate-git-dir: the repository lives outside the sandbox's mount.
  await runGit(['init', '-q', '--template=', `--initial-branch=${opts.branch}`, `--separate-git-dir=${gitDir}`, ws]);
  const g = workspaceGitArgs(gitDir, ws, opts.excludesFile);
  const head = await runGit([...g, 'rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => null);
  if (!head) {
    await runGit([...g, 'add', '-A']);
    await runGit([...g, 'commit', '-q', '--no-verify', '--allow-empty', '-m', message]);
  }
  const baseCommit = (await runGit([...g, 'rev-list', '--max-parents=0', '-n', '1', 'HEAD'])).stdout.trim();
  return { gitDir, excludesFile: opts.excludesFile, branch: opts.branch, baseCommit };
}

const CACHE_DIRECTORIES: ReadonlySet<string> = new Set(['.git', '__pycache__', '.pytest_cache', '.roundtable']);

/**
 * The copy's counterpart of CACHE_EXCLUDES, plus `.git`, anything that is not a file, directory
 * or link, and what the source's owner keeps from other users: a file without o+r, a directory
 * without o+rx (recorded in `leftOut`, relative to the origin). The copy is made by the
 * test-runner, often root, and handed to the sandbox's group, so without this a 0700 directory
 * of secrets would become readable to the tests and to every role that reads the workspace.
 */
async function keepInCopy(origin: string, src: string, leftOut: string[]): Promise<boolean> {
  if (src === origin) return true;
  const name = path.basename(src);
  if (CACHE_DIRECTORIES.has(name) || name.endsWith('.pyc')) return false;
  if (name === '.cache' && path.basename(path.dirname(src)) === 'node_modules') return false;
  const st = await lstat(src);
  if (st.isSymbolicLink()) return true;
  if (!st.isFile() && !st.isDirectory()) return false;
  const othersNeed = st.isDirectory() ? 0o005 : 0o004;
  if ((st.mode & othersNeed) !== othersNeed) {
    leftOut.push(path.relative(origin, src) + (st.isDirectory() ? '/' : ''));
    return false;
  }
  return true;
}
