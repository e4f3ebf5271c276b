import { lstat, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { PathEscapeError } from './path-escape.error';

/**
 * Why a model-chosen path is unacceptable before looking at the disk, or null.
 * Deliberately stricter than POSIX: backslashes and drive letters are refused rather than
 * interpreted, because the same path may later be shown to a human on another OS.
 */
export function lexicalPathProblem(p: string): string | null {
  if (typeof p !== 'string') return 'path is not a string';
  if (p.includes('\0')) return 'contains a NUL byte';
  if (p.trim() === '') return 'empty path';
  if (p.startsWith('/')) return 'absolute path';
  if (/^[a-zA-Z]:/.test(p)) return 'drive letter';
  if (p.includes('\\')) return 'contains a backslash';
  if (p.split('/').some((seg) => seg === '..')) return "contains '..'";
  // Repository metadata, not a project file: a written hook would run on the host at the next
  // commit, a rewritten `.git` file would point the commit at another repository. Any case,
  // because `.GIT` is `.git` on a case-insensitive filesystem.
  if (p.split('/').some((seg) => seg.toLowerCase() === '.git')) return 'is inside .git (repository metadata, not a workspace file)';
  if (pathSegments(p).length === 0) return 'empty path';
  return null;
}

/** `a//b/./c` and `a/b/c` name the same file; only real names are kept. */
export function pathSegments(p: string): string[] {
  return p.split('/').filter((seg) => seg !== '' && seg !== '.');
}

export interface ResolvedWorkspacePath {
  /** Where the bytes really live (symlinks inside the workspace already followed). */
  absolute: string;
  /** Canonical `a/b/c` form of the requested path, for reporting. */
  relative: string;
  exists: boolean;
}

/** Real path of the workspace root; every check compares against this, not the given string. */
export async function workspaceRoot(ws: string): Promise<string> {
  return realpath(path.resolve(ws));
}

function isInside(rootReal: string, candidate: string): boolean {
  const rel = path.relative(rootReal, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Walks the path one component at a time with lstat so that every existing symlink on the
 * way (directory or the file itself) is resolved and must land inside the workspace.
 * A dangling symlink is refused too: writing through it would create its target, wherever
 * that is.
 */
export async function resolveInWorkspace(rootReal: string, requested: string): Promise<ResolvedWorkspacePath> {
  const problem = lexicalPathProblem(requested);
  if (problem) throw new PathEscapeError(requested, problem);

  const segments = pathSegments(requested);
  const relative = segments.join('/');
  let current = rootReal;

  for (let i = 0; i < segments.length; i++) {
    const isLast = i === segments.length - 1;
    const shown = segments.slice(0, i + 1).join('/');
    const next = path.join(current, segments[i]);

    let stat;
    try {
      stat = await lstat(next);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // Nothing exists from here on, so the rest will be created as plain directories under `current`.
      return { absolute: path.join(current, ...segments.slice(i)), relative, exists: false };
    }

    let resolved = next;
    if (stat.isSymbolicLink()) {
      try {
        resolved = await realpath(next);
      } catch {
        throw new PathEscapeError(requested, `symlink ${shown} cannot be resolved (dangling)`);
      }
      if (!isInside(rootReal, resolved)) {
        throw new PathEscapeError(requested, `symlink ${shown} points outside the workspace`);
      }
      stat = await lstat(resolved);
    }

    if (!isLast && !stat.isDirectory()) throw new PathEscapeError(requested, `${shown} is not a directory`);
    if (isLast && stat.isDirectory()) throw new PathEscapeError(requested, 'is a directory');
    // FIFOs and devices would block or do something other than store bytes.
    if (isLast && !stat.isFile()) throw new PathEscapeError(requested, 'is not a regular file');
    current = resolved;
  }

  return { absolute: current, relative, exists: true };
}
