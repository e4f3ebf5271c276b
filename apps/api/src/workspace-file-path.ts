import { posix } from 'node:path';
import { unsafePathReason } from '@roundtable/contracts';
import { ApiError } from './api-error';

/** Longer than any path a run writes needs; a longer one is refused before it is looked up. */
export const MAX_FILE_PATH_CHARS = 1024;

const FIX = 'give a path relative to the workspace, as implementations[].files[].path in GET /v1/runs/:id/records lists it (e.g. src/app.py)';

/**
 * The `path` query parameter of GET /v1/runs/:id/files, checked before it is looked up: one
 * string, relative, no `..` segment, no NUL, no backslash, no control character, not inside
 * .git, at most MAX_FILE_PATH_CHARS (the engineer's own path rules, unsafePathReason, plus the
 * length). Express has decoded the query once, so `%2e%2e` arrives as `..` and is refused here;
 * a twice-encoded one stays literal text that names no written file. The path is only ever
 * compared with the paths the run recorded, never joined to a directory on disk. Returns it
 * normalized (`./a//b` is `a/b`), as recorded paths are when compared.
 */
export function workspaceFilePath(value: unknown): string {
  if (typeof value !== 'string') {
    throw invalid(value === undefined ? 'path is required' : 'path must be given once, as one string');
  }
  if (value.length > MAX_FILE_PATH_CHARS) throw invalid(`path is ${value.length} characters; at most ${MAX_FILE_PATH_CHARS}`);
  const why = unsafePathReason(value);
  if (why) throw invalid(`path ${why.replace(/^path /, '')}`);
  return normalizedPath(value);
}

/** A safe relative path in one spelling: `./a//b/` and `a/b` are the same file. */
export function normalizedPath(p: string): string {
  return posix.normalize(p).replace(/^\.\//, '').replace(/\/$/, '');
}

function invalid(message: string): ApiError {
  const full = `${message}: ${FIX}`;
  return ApiError.badRequest('invalid_path', full, { issues: [{ path: 'path', message: full }] });
}
