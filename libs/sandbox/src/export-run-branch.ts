import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { runGit } from './git-command';
import type { RepoWorkspace } from './git-workspace';

export interface RunBranchExport {
  /** `<outDir>/<branch>.bundle`: the whole run branch, base commit included (`git clone` or `git fetch` it). */
  bundle: string;
  /** `<outDir>/<branch>.patch`: base..branch as one `git diff --binary`, for `git apply` onto the original files. */
  patch: string;
}

/**
 * What a run that cannot be merged offers instead (a copy of a plain directory, a greenfield
 * run): its branch as a git bundle and as a patch, written to `outDir`. The bundle holds the
 * base commit too, since Roundtable made that commit and nobody else has it; the patch is
 * against the base's files, which for a copy are the original directory's.
 */
export async function exportRunBranch(ws: RepoWorkspace, outDir: string): Promise<RunBranchExport> {
  if (!ws.git) throw new Error(`workspace ${ws.path} has no git repository (git was not installed when it was made): there is no branch to export`);
  const { gitDir, branch, baseCommit } = ws.git;
  // Only commits are read: --git-dir alone, no work tree the tests could have changed.
  const g = [`--git-dir=${gitDir}`];
  await mkdir(outDir, { recursive: true });
  const name = branch.replace(/\//g, '-');
  const bundle = path.join(outDir, `${name}.bundle`);
  const patch = path.join(outDir, `${name}.patch`);
  await runGit([...g, 'bundle', 'create', '--quiet', bundle, `refs/heads/${branch}`]);
  // --output: git writes the bytes itself; through a string a text file that is not UTF-8 would
  // come out changed and the patch would no longer apply.
  await runGit([
    ...g,
    'diff',
    `--output=${patch}`,
    '--binary',
    '--full-index',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    baseCommit,
    `refs/heads/${branch}`,
    '--',
  ]);
  return { bundle, patch };
}
