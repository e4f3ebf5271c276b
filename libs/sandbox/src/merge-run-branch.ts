import { lstat, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { GitCommandError, runGit } from './git-command';
import type { RepoWorkspace } from './git-workspace';

/**
 * Issue 21: an approved run branch enters the original repository. The only code in this lib
 * that writes to an operator's repository; everything else leaves it as it was.
 */

export type MergeStrategy = 'ff' | 'merge' | 'squash';

export interface MergeRunBranchOptions {
  /** The branch of the original repository to merge into (merge.into). */
  into: string;
  strategy: MergeStrategy;
  /** The message of the merge or squash commit (unused by ff, which makes no commit). */
  message: string;
  /** Author and committer of that commit; default Roundtable <roundtable@localhost>. */
  author?: { name: string; email: string };
}

export type MergeRefusalCode = 'not_git' | 'dirty' | 'conflict' | 'not_fast_forward' | 'no_branch' | 'no_target' | 'nothing_to_merge' | 'checked_out_elsewhere';

export interface MergeDone {
  merged: true;
  into: string;
  strategy: MergeStrategy;
  /** The new tip of `into`. */
  commit: string;
  /** `into`'s tip before the merge. */
  previous: string;
  /** Files that differ between previous and commit. */
  files: number;
}

export interface MergeRefused {
  merged: false;
  code: MergeRefusalCode;
  /** Says what is in the way and what to do about it. */
  reason: string;
}

export type MergeOutcome = MergeDone | MergeRefused;

const DEFAULT_AUTHOR = { name: 'Roundtable', email: 'roundtable@localhost' };

/** How many paths a refusal names. */
const NAMED_PATHS = 5;

/** How often `into` may move under us (another push, a person committing) before we give up. */
const MOVED_RETRIES = 3;

const refused = (code: MergeRefusalCode, reason: string): MergeRefused => ({ merged: false, code, reason });

function named(paths: readonly string[]): string {
  const more = paths.length > NAMED_PATHS ? ` and ${paths.length - NAMED_PATHS} more` : '';
  return paths.slice(0, NAMED_PATHS).join(', ') + more;
}

/**
 * Merges the run branch (`roundtable/<runId>`) of a worktree workspace into branch `into` of the
 * original repository (`ws.origin`). Never forced: every case where a merge could lose or
 * overwrite something is a refusal with the reason, the original left exactly as it was.
 *
 * - Refused: not a worktree (`not_git`), no such `into` (`no_target`), the run branch gone
 *   (`no_branch`), uncommitted changes to tracked files or staged changes in the original
 *   (`dirty`), the run branch already in `into` (`nothing_to_merge`), `into` moved on for an
 *   `ff` (`not_fast_forward`), a conflict (`conflict`, naming the paths), `into` checked out in
 *   another worktree of the repository, whose files would fall out of step with it
 *   (`checked_out_elsewhere`).
 * - The result is always computed with plumbing (`git merge-tree --write-tree`, `commit-tree`):
 *   it writes objects only, never a work tree or an index, so a conflict is found before
 *   anything a person sees has changed and there is no half-done merge to abort.
 * - `into` not checked out: its ref is moved with a compare-and-swap `update-ref` (refused by git
 *   if `into` moved since it was read; then the merge is computed again).
 * - `into` checked out in the original: the original is fast-forwarded to that commit
 *   (`git merge --ff-only`), which updates ref, index and working tree together and itself
 *   refuses to overwrite a local change. A file the merge adds where the original has an
 *   untracked or ignored file is refused first (`dirty`): git would overwrite an ignored one.
 */
export async function mergeRunBranch(ws: RepoWorkspace, opts: MergeRunBranchOptions): Promise<MergeOutcome> {
  if (ws.source !== 'worktree' || !ws.origin || !ws.git) {
    const what = ws.source === 'copy' ? `a copy of ${ws.origin}` : ws.source === 'empty' ? 'a greenfield workspace' : 'a workspace without git';
    return refused(
      'not_git',
      `the run worked in ${what}, not a worktree of a git repository, so there is no original branch to merge into; its branch is offered as a git bundle and a patch instead (exportRunBranch)`,
    );
  }
  const origin = ws.origin;
  const branch = ws.git.branch;
  const at = (...args: string[]) => runGit(['-C', origin, ...args]);
  const tipOf = async (ref: string) => (await at('rev-parse', '--verify', '--quiet', `${ref}^{commit}`).catch(() => null))?.stdout.trim() ?? null;

  // Defence in depth: merge.into is a checked branch name (MergeConfig), and refs/heads/ keeps
  // anything else from being read as an option or another kind of ref.
  if (opts.into.startsWith('-') || (await at('check-ref-format', `refs/heads/${opts.into}`).catch(() => null)) === null) {
    return refused('no_target', `"${opts.into}" is not a branch name; set merge.into to a branch of ${origin}, e.g. main`);
  }
  const target = `refs/heads/${opts.into}`;

  for (let attempt = 1; ; attempt++) {
    const previous = await tipOf(target);
    if (!previous) return refused('no_target', `${origin} has no branch ${opts.into}; create it there, or set merge.into to an existing branch`);
    const head = await tipOf(`refs/heads/${branch}`);
    if (!head) return refused('no_branch', `the run branch ${branch} is no longer in ${origin} (deleted?); nothing is left to merge`);

    const dirty = await uncommittedPaths(origin);
    if (dirty.length) {
      return refused(
        'dirty',
        `${origin} has uncommitted changes (${dirty.length}): ${named(dirty)}; commit or stash them there, then approve the merge again`,
      );
    }
    if (await isAncestor(origin, head, previous)) {
      return refused('nothing_to_merge', `${branch} is already in ${opts.into} (its tip ${head.slice(0, 12)} is an ancestor of ${previous.slice(0, 12)})`);
    }

    const checkedOut = await checkedOutAt(origin, target);
    if (checkedOut.elsewhere) {
      return refused(
        'checked_out_elsewhere',
        `${opts.into} is checked out in ${checkedOut.elsewhere}, another worktree of ${origin}, whose files would no longer match it; check out another branch there, then approve the merge again`,
      );
    }

    const result = await mergeCommit(origin, { previous, head, branch, ...opts });
    if ('code' in result) return result;

    if (checkedOut.here) {
      const inTheWay = await untrackedInTheWay(origin, previous, result.commit);
      if (inTheWay.length) {
        return refused(
          'dirty',
          `the merge adds ${named(inTheWay)}, which ${inTheWay.length === 1 ? 'is' : 'are'} already in ${origin} as untracked or ignored file(s); move them away, then approve the merge again`,
        );
      }
    }

    const moved = checkedOut.here ? !(await fastForwardCheckedOut(origin, result.commit)) : !(await compareAndSwap(origin, target, result.commit, previous, `${branch} (${opts.strategy})`));
    if (moved) {
      if (attempt < MOVED_RETRIES) continue;
      throw new Error(`${opts.into} in ${origin} kept moving while ${branch} was being merged (${MOVED_RETRIES} attempts); approve the merge again once it is quiet`);
    }
    const files = (await at('diff', '--name-only', '-z', '--no-renames', previous, result.commit, '--')).stdout.split('\0').filter(Boolean).length;
    return { merged: true, into: opts.into, strategy: opts.strategy, commit: result.commit, previous, files };
  }
}

/** Tracked files changed in the working tree or staged, as `git status` names them. */
async function uncommittedPaths(origin: string): Promise<string[]> {
  const fields = (await runGit(['-C', origin, 'status', '--porcelain', '-z', '--untracked-files=no'])).stdout.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const rec = fields[i];
    if (rec.length < 4) continue;
    paths.push(rec.slice(3));
    // A rename or copy is followed by its source path.
    if (rec[0] === 'R' || rec[0] === 'C') i++;
  }
  return paths;
}

async function isAncestor(origin: string, maybeAncestor: string, of: string): Promise<boolean> {
  const out = await runGit(['-C', origin, 'merge-base', '--is-ancestor', maybeAncestor, of], { answerExitCodes: [1] });
  return out.exitCode === 0;
}

/** Whether `ref` is the original's checked-out branch, and which other worktree (not the run's) has it checked out. */
async function checkedOutAt(origin: string, ref: string): Promise<{ here: boolean; elsewhere: string | null }> {
  const head = await runGit(['-C', origin, 'symbolic-ref', '--quiet', 'HEAD'], { answerExitCodes: [1] });
  const here = head.exitCode === 0 && head.stdout.trim() === ref;
  let elsewhere: string | null = null;
  let worktree = '';
  for (const line of (await runGit(['-C', origin, 'worktree', 'list', '--porcelain', '-z'])).stdout.split('\0')) {
    if (line.startsWith('worktree ')) worktree = line.slice('worktree '.length);
    if (line === `branch ${ref}` && (await realpath(worktree).catch(() => worktree)) !== origin) elsewhere = worktree;
  }
  return { here, elsewhere };
}

/**
 * The commit `into` should point at: `head` itself for ff, else a new commit of the merged tree
 * with parents previous and head (merge) or previous alone (squash). Written with plumbing, so
 * only objects are added to the repository.
 */
async function mergeCommit(
  origin: string,
  o: MergeRunBranchOptions & { previous: string; head: string; branch: string },
): Promise<{ commit: string } | MergeRefused> {
  const canFastForward = await isAncestor(origin, o.previous, o.head);
  if (o.strategy === 'ff') {
    return canFastForward
      ? { commit: o.head }
      : refused(
          'not_fast_forward',
          `${o.into} has moved on since the run started (${o.previous.slice(0, 12)} is not in ${o.branch}), so it cannot be fast-forwarded; use strategy merge or squash, or rebase ${o.branch} onto ${o.into}`,
        );
  }
  const tree = await runGit(['-C', origin, 'merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', o.previous, o.head], { answerExitCodes: [1] }).catch((e: unknown) => {
    // Before git 2.38 merge-tree has no --write-tree: say what to install rather than quote its usage text.
    if (e instanceof GitCommandError && /usage|unknown option/i.test(e.stderr)) throw new Error(`merging a run branch needs git 2.38 or later on the test-runner (git merge-tree --write-tree): ${e.stderr.trim().split('\n')[0]}`);
    throw e;
  });
  const [treeId, ...conflicted] = tree.stdout.split('\0').filter(Boolean);
  if (tree.exitCode === 1) {
    const paths = [...new Set(conflicted)];
    return refused(
      'conflict',
      `${o.branch} conflicts with ${o.into}, which has moved on since the run started, in ${paths.length} file(s): ${named(paths)}; ${o.into} is unchanged. Merge ${o.into} into the run branch and resolve them, or re-run from the new ${o.into}`,
    );
  }
  if (o.strategy === 'squash' && (await treeOf(origin, o.previous)) === treeId) {
    return refused('nothing_to_merge', `the changes of ${o.branch} are already in ${o.into}: squashed, they change nothing`);
  }
  const parents = o.strategy === 'merge' ? ['-p', o.previous, '-p', o.head] : ['-p', o.previous];
  const who = o.author ?? DEFAULT_AUTHOR;
  const commit = await runGit(['-c', `user.name=${who.name}`, '-c', `user.email=${who.email}`, '-C', origin, 'commit-tree', treeId, ...parents, '-m', o.message]);
  return { commit: commit.stdout.trim() };
}

async function treeOf(origin: string, commit: string): Promise<string> {
  return (await runGit(['-C', origin, 'rev-parse', '--verify', `${commit}^{tree}`])).stdout.trim();
}

/** Paths the merge adds that already exist, untracked or ignored, in the original's working tree. */
async function untrackedInTheWay(origin: string, previous: string, commit: string): Promise<string[]> {
  const added = (await runGit(['-C', origin, 'diff', '--name-only', '-z', '--no-renames', '--diff-filter=A', previous, commit, '--'])).stdout.split('\0').filter(Boolean);
  const present: string[] = [];
  for (const p of added) {
    // A leading directory that is a file or a link would be in the way just the same.
    const parts = p.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const st = await lstat(path.join(origin, ...parts.slice(0, i))).catch(() => null);
      if (!st) break;
      if (i === parts.length || !st.isDirectory()) {
        present.push(parts.slice(0, i).join('/'));
        break;
      }
    }
  }
  return [...new Set(present)];
}

/**
 * Moves a branch that is not checked out. The old value makes it a compare-and-swap: if anyone
 * moved the branch after we read it, git refuses and we start again from its new tip rather
 * than throw their commit away. false: it moved.
 */
async function compareAndSwap(origin: string, ref: string, commit: string, previous: string, what: string): Promise<boolean> {
  try {
    await runGit(['-C', origin, 'update-ref', '-m', `roundtable: merge ${what}`, ref, commit, previous]);
    return true;
  } catch (e) {
    if (e instanceof GitCommandError && (await runGit(['-C', origin, 'rev-parse', '--verify', ref])).stdout.trim() !== previous) return false;
    throw e;
  }
}

/**
 * Brings the original's checked-out branch, index and working tree to `commit`, a descendant of
 * its tip. A fast-forward never merges and never forces: git refuses if a local change would be
 * overwritten, and changes nothing then. No autostash, whatever the repository's config says.
 * false: the branch moved, so this is no longer a fast-forward.
 */
async function fastForwardCheckedOut(origin: string, commit: string): Promise<boolean> {
  try {
    await runGit(['-c', 'merge.autoStash=false', '-C', origin, 'merge', '--ff-only', '--no-stat', '--quiet', commit]);
    return true;
  } catch (e) {
    if (!(e instanceof GitCommandError)) throw e;
    const tip = (await runGit(['-C', origin, 'rev-parse', '--verify', 'HEAD'])).stdout.trim();
    if (!(await isAncestor(origin, tip, commit))) return false;
    throw new Error(`${origin} refused the fast-forward to the merge and was left as it was (a file there changed during the merge?): ${e.stderr.trim()}; approve the merge again`);
  }
}
