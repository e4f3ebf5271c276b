import { PathEscapeError, readWorkspaceFiles } from '@roundtable/sandbox';

/** One path's answer to a reader (a role's file request, an engineer's read_file): its content, or why there is none. */
export interface ReadOutcome {
  path: string;
  content: string | null;
  bytes: number | null;
  truncated: boolean;
  error: string | null;
}

export async function readOne(ws: string, p: string, maxBytes: number): Promise<ReadOutcome> {
  try {
    const [f] = await readWorkspaceFiles(ws, [p], { maxBytesPerFile: maxBytes });
    // A NUL byte in what was read: a binary file would only be noise (and tokens) in a prompt.
    if (f.content.includes('\0')) return { path: p, content: null, bytes: f.bytes, truncated: false, error: 'a binary file; not shown' };
    return { path: p, content: f.content, bytes: f.bytes, truncated: f.truncated, error: null };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === 'ENOENT'
        ? 'no such file in the workspace'
        : err.code === 'EISDIR'
          ? 'a directory, not a file'
          : err instanceof PathEscapeError
            ? `refused: ${err.message}`
            : `could not be read: ${err.message}`;
    return { path: p, content: null, bytes: null, truncated: false, error: why };
  }
}
