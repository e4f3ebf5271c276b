import { constants } from 'node:fs';
import { mkdir, open, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { resolveInWorkspace, workspaceRoot } from './workspace-path';

/**
 * A run id becomes a directory name, so it must be one plain path segment; anything else
 * could place the workspace somewhere other than under `root`.
 */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Creates `<root>/<runId>/workspace`. Idempotent and never wipes: a retried job must find
 * the files the engineer already wrote, not an empty directory.
 */
export async function prepareEmptyWorkspace(root: string, runId: string): Promise<string> {
  const ws = path.join(runDirectory(root, runId), 'workspace');
  await mkdir(ws, { recursive: true });
  return ws;
}

/** `<root>/<runId>`: the workspace and, beside it (outside the sandbox's mount), the run's git metadata. */
export function runDirectory(root: string, runId: string): string {
  if (!RUN_ID.test(runId) || runId.includes('..')) {
    throw new Error(`runId ${JSON.stringify(runId)} is not usable as a directory name (letters, digits, . _ - only)`);
  }
  return path.join(path.resolve(root), runId);
}

/** Generated or vendored trees: listing them would crowd the real files out of a prompt. */
export const IGNORED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '__pycache__',
  '.pytest_cache',
  'node_modules',
  '.venv',
  '.mypy_cache',
  '.ruff_cache',
]);

/** Stops a pathological tree (or a test that writes a million files) from exhausting memory. */
const MAX_VISITED = 50_000;

/**
 * Sorted relative paths of files (and symlinks, which are listed but never followed) in the
 * workspace, at most `maxEntries` of them.
 */
export async function listFileTree(ws: string, opts: { maxEntries?: number } = {}): Promise<string[]> {
  const maxEntries = opts.maxEntries ?? 500;
  const rootReal = await workspaceRoot(ws);
  const found: string[] = [];
  const pending: string[] = [''];
  let visited = 0;

  while (pending.length > 0 && visited < MAX_VISITED) {
    const dirRel = pending.pop() as string;
    const entries = await readdir(path.join(rootReal, dirRel), { withFileTypes: true });
    for (const entry of entries) {
      visited++;
      const rel = dirRel === '' ? entry.name : `${dirRel}/${entry.name}`;
      // A worktree's `.git` is a file naming a host path; it is no more the project's than the directory is.
      if (entry.name === '.git') continue;
      if (entry.isDirectory()) {
        if (!IGNORED_DIRECTORIES.has(entry.name)) pending.push(rel);
      } else {
        found.push(rel);
      }
    }
  }
  return found.sort().slice(0, maxEntries);
}

export interface WorkspaceFileContent {
  path: string;
  content: string;
  truncated: boolean;
  /** The file's whole size on disk. */
  bytes: number;
}

/**
 * Reads files a model asked to see. Same path rules as writes: a symlink out of the
 * workspace would otherwise let a prompt exfiltrate host files.
 */
export async function readWorkspaceFiles(
  ws: string,
  paths: readonly string[],
  opts: { maxBytesPerFile?: number } = {},
): Promise<WorkspaceFileContent[]> {
  const maxBytes = opts.maxBytesPerFile ?? 64 * 1024;
  const rootReal = await workspaceRoot(ws);

  const targets = [];
  for (const p of paths) {
    const target = await resolveInWorkspace(rootReal, p);
    if (!target.exists) {
      throw Object.assign(new Error(`No such file in the workspace: ${JSON.stringify(p)}`), { code: 'ENOENT', path: p });
    }
    targets.push(target);
  }

  const results: WorkspaceFileContent[] = [];
  for (const target of targets) {
    const handle = await open(target.absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const { size } = await handle.stat();
      const buffer = Buffer.alloc(Math.min(size, maxBytes));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      results.push({
        path: target.relative,
        content: buffer.subarray(0, filled).toString('utf8'),
        truncated: size > maxBytes,
        bytes: size,
      });
    } finally {
      await handle.close();
    }
  }
  return results;
}
