import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import * as path from 'node:path';
import { PathEscapeError } from './path-escape.error';
import { resolveInWorkspace, ResolvedWorkspacePath, workspaceRoot } from './workspace-path';

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
