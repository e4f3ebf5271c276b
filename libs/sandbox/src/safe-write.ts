import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { PathEscapeError } from './path-escape.error';
import { lexicalPathProblem, pathSegments, resolveInWorkspace, ResolvedWorkspacePath, workspaceRoot } from './workspace-path';

export interface WorkspaceFileChange {
  path: string;
  content: string;
}

export interface WriteResult {
  /** Canonical relative paths, in the order given. */
  written: string[];
}

/**
 * Every path is checked before the first byte is written, so a batch with one bad path
 * leaves the workspace untouched and the engineer can be told exactly which path and why.
 */
export async function writeFileChanges(ws: string, files: readonly WorkspaceFileChange[]): Promise<WriteResult> {
  const rootReal = await workspaceRoot(ws);

  const targets: ResolvedWorkspacePath[] = [];
  for (const file of files) {
    if (typeof file.content !== 'string') throw new TypeError(`content for ${JSON.stringify(file.path)} is not a string`);
    targets.push(await resolveInWorkspace(rootReal, file.path));
  }
  refuseFileDirectoryClashes(rootReal, files, targets);

  for (let i = 0; i < files.length; i++) {
    const target = targets[i];
    await mkdir(path.dirname(target.absolute), { recursive: true });
    // O_NOFOLLOW: the target was resolved to its real location above, so a symlink here
    // means something changed it since validation; refuse rather than follow.
    const handle = await open(
      target.absolute,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      await handle.writeFile(files[i].content, 'utf8');
    } finally {
      await handle.close();
    }
  }
  return { written: targets.map((t) => t.relative) };
}

/** `a` and `a/b` in one batch cannot both be files; catching it here keeps the batch all-or-nothing. */
function refuseFileDirectoryClashes(
  rootReal: string,
  files: readonly WorkspaceFileChange[],
  targets: readonly ResolvedWorkspacePath[],
): void {
  const fileTargets = new Set(targets.map((t) => t.absolute));
  targets.forEach((t, i) => {
    for (let dir = path.dirname(t.absolute); dir.startsWith(rootReal + path.sep); dir = path.dirname(dir)) {
      if (fileTargets.has(dir)) {
        throw new PathEscapeError(files[i].path, `needs ${path.relative(rootReal, dir)} to be a directory, but the same batch writes it as a file`);
      }
    }
  });
}

/** Deletions checked and ready: `run()` removes the files. */
export interface DeletionPlan {
  /** Canonical relative paths of the files to remove, in the order given. */
  deleted: string[];
  /** Paths named but not there: nothing to delete (so a repeated apply changes nothing). */
  missing: string[];
  run(): Promise<void>;
}

/**
 * Checks the files an engineer asked to delete, all before any goes (so a caller can also
 * check them before writing): the file's directory, every symlink on the way followed, must
 * be inside the workspace; the file itself may be a symlink, which is removed, never followed.
 * A directory is refused by name; a file that is not there is reported as missing, not an
 * error (the engineer's intent, no such file, holds; and a repeated apply job must not fail).
 */
export async function planWorkspaceDeletions(ws: string, paths: readonly string[]): Promise<DeletionPlan> {
  const rootReal = await workspaceRoot(ws);
  const targets: { absolute: string; relative: string }[] = [];
  const absent: string[] = [];
  for (const requested of paths) {
    const problem = lexicalPathProblem(requested);
    if (problem) throw new PathEscapeError(requested, problem);
    const segments = pathSegments(requested);
    const parent = await realpath(path.join(rootReal, ...segments.slice(0, -1))).catch(missing);
    if (parent !== null && !isInsideWorkspace(rootReal, parent)) throw new PathEscapeError(requested, 'resolves outside the workspace');
    const absolute = parent === null ? '' : path.join(parent, segments[segments.length - 1]);
    const st = parent === null ? null : await lstat(absolute).catch(missing);
    if (!st) {
      absent.push(segments.join('/'));
      continue;
    }
    if (st.isDirectory()) throw new PathEscapeError(requested, 'is a directory; list the files in it to delete them');
    targets.push({ absolute, relative: segments.join('/') });
  }
  return {
    deleted: targets.map((t) => t.relative),
    missing: absent,
    run: async () => {
      for (const t of targets) await unlink(t.absolute);
    },
  };
}

/** planWorkspaceDeletions, then the deletions. */
export async function deleteWorkspaceFiles(ws: string, paths: readonly string[]): Promise<{ deleted: string[]; missing: string[] }> {
  const plan = await planWorkspaceDeletions(ws, paths);
  await plan.run();
  return { deleted: plan.deleted, missing: plan.missing };
}

/** null for a path that is not there (or runs through a file), any other error as it is. */
function missing(e: NodeJS.ErrnoException): null {
  if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null;
  throw e;
}

function isInsideWorkspace(rootReal: string, candidate: string): boolean {
  const rel = path.relative(rootReal, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
