import { runGit, workspaceGitArgs } from './git-command';
import type { RepoWorkspace, WorkspaceGit } from './git-workspace';

export interface DiffStatEntry {
  path: string;
  /** null for a binary file. */
  added: number | null;
  deleted: number | null;
}

export interface WorkspaceCommit {
  /** HEAD of the run branch afterwards. */
  commit: string;
  /** false: nothing had changed, HEAD is the previous commit. */
  committed: boolean;
}

export interface WorkspaceDiff {
  text: string;
  /** Longer than maxBytes: `text` is its beginning. */
  truncated: boolean;
}

function gitOf(ws: RepoWorkspace): WorkspaceGit {
  if (!ws.git) throw new Error(`workspace ${ws.path} has no git repository (git was not installed when it was made)`);
  return ws.git;
}

const args = (ws: RepoWorkspace): string[] => {
  const git = gitOf(ws);
  return workspaceGitArgs(git.gitDir, ws.path, git.excludesFile);
};

/**
 * Commits everything in the workspace on the run branch (`git add -A`, caches excluded), and
 * `paths` even where a .gitignore matches them: a file the engineer wrote and the tests ran
 * must be in the diff the reviewers see. Nothing to commit is not an error.
 */
export async function commitWorkspace(ws: RepoWorkspace, opts: { message: string; paths?: readonly string[] }): Promise<WorkspaceCommit> {
  const g = args(ws);
  await runGit([...g, 'add', '-A']);
  if (opts.paths?.length) await runGit(['--literal-pathspecs', ...g, 'add', '-f', '--', ...opts.paths]);
  const staged = (await runGit([...g, 'diff', '--cached', '--name-only', '-z'])).stdout;
  if (staged !== '') await runGit([...g, 'commit', '-q', '--no-verify', '-m', opts.message]);
  const commit = (await runGit([...g, 'rev-parse', '--verify', 'HEAD^{commit}'])).stdout.trim();
  return { commit, committed: staged !== '' };
}

/** Options that make the output the same whatever the repository's config says about diffs. */
const DIFF_OPTIONS = ['--no-color', '--no-ext-diff', '--no-textconv', '--no-renames'];

/** `git diff from to` (default: the base commit to HEAD, i.e. every round so far), at most maxBytes of it. */
export async function workspaceDiff(ws: RepoWorkspace, opts: { from?: string; to?: string; maxBytes?: number } = {}): Promise<WorkspaceDiff> {
  const from = opts.from ?? gitOf(ws).baseCommit;
  const out = await runGit([...args(ws), 'diff', ...DIFF_OPTIONS, '--src-prefix=a/', '--dst-prefix=b/', from, opts.to ?? 'HEAD', '--'], {
    maxStdoutBytes: opts.maxBytes ?? 1024 * 1024,
  });
  return { text: out.stdout, truncated: out.truncated };
}

/** Lines added and deleted per file between two commits (default: the base commit to HEAD). */
export async function workspaceDiffStat(ws: RepoWorkspace, opts: { from?: string; to?: string } = {}): Promise<DiffStatEntry[]> {
  const from = opts.from ?? gitOf(ws).baseCommit;
  const { stdout } = await runGit([...args(ws), 'diff', ...DIFF_OPTIONS, '--numstat', '-z', from, opts.to ?? 'HEAD', '--']);
  return parseNumstat(stdout);
}

/** `added\tdeleted\tpath\0` per file; `-` counts for a binary file. */
export function parseNumstat(out: string): DiffStatEntry[] {
  return out
    .split('\0')
    .filter((rec) => rec !== '')
    .map((rec) => {
      const [added, deleted, ...rest] = rec.split('\t');
      const count = (s: string) => (s === '-' ? null : Number(s));
      return { path: rest.join('\t'), added: count(added), deleted: count(deleted) };
    });
}

/** One path `git add -A` staged: what an engineer in agent mode did to the worktree. */
export interface StagedChange {
  path: string;
  kind: 'added' | 'modified' | 'deleted' | 'other';
}

export interface StagedChanges {
  changes: StagedChange[];
  /** `git diff --cached`: the change against the run branch's HEAD. */
  diff: WorkspaceDiff;
}

/**
 * `git add -A && git diff --cached` in the worktree (caches excluded as for commits): how an
 * engineer working as a CLI agent inside the worktree hands over its work. The index is left
 * staged; the apply step commits it on the run branch like any other round.
 */
export async function stageWorkspaceChanges(ws: RepoWorkspace, opts: { maxBytes?: number } = {}): Promise<StagedChanges> {
  const g = args(ws);
  await runGit([...g, 'add', '-A']);
  const { stdout } = await runGit([...g, 'diff', '--cached', '--no-renames', '--name-status', '-z']);
  const fields = stdout.split('\0');
  const changes: StagedChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i];
    const kind = status === 'A' ? 'added' : status === 'M' ? 'modified' : status === 'D' ? 'deleted' : 'other';
    changes.push({ path: fields[i + 1], kind });
  }
  const out = await runGit([...g, 'diff', '--cached', ...DIFF_OPTIONS, '--src-prefix=a/', '--dst-prefix=b/', '--'], {
    maxStdoutBytes: opts.maxBytes ?? 1024 * 1024,
  });
  return { changes, diff: { text: out.stdout, truncated: out.truncated } };
}
