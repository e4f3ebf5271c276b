import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { STDOUT_TAIL_BYTES } from './output-limits';
import type { TestRunOutcome } from './test-runner';

export interface SetIdSweep {
  /** Workspace-relative paths of regular files whose setuid/setgid bits were cleared. */
  cleared: string[];
  /** Files with such a bit that this process may not change (not root and not their owner). */
  kept: string[];
}

/** S_ISUID | S_ISGID (node's fs.constants has neither). */
const SET_ID_BITS = 0o4000 | 0o2000;

/**
 * Clears the setuid and setgid bits of every regular file under `ws`. Run after each test run
 * (and after a repository copy): a file the sandbox leaves behind must not become a way to
 * gain its owner's or group's identity on the host, where no-new-privileges does not hold.
 * Directories keep their setgid bit: workspace-grant sets it on purpose, and on a directory it
 * only decides the group of new files.
 *
 * Symlinks are never followed, neither into directories nor onto files: each file is opened
 * with O_NOFOLLOW and changed through that descriptor, so a link planted by the tests (or one
 * swapped in after readdir) cannot make us chmod a host file.
 */
export async function clearSetIdBits(ws: string): Promise<SetIdSweep> {
  const sweep: SetIdSweep = { cleared: [], kept: [] };
  const pending: string[] = [''];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    let entries;
    try {
      entries = await readdir(path.join(ws, rel), { withFileTypes: true });
    } catch (err) {
      // Removed, or made unreadable by the tests to a non-root runner: nothing of ours to clear there.
      if (isGoneOrDenied(err) && rel !== '') continue;
      throw err;
    }
    for (const entry of entries) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) pending.push(childRel);
      else if (entry.isFile()) await clearOne(ws, childRel, sweep);
    }
  }
  return sweep;
}

async function clearOne(ws: string, rel: string, sweep: SetIdSweep): Promise<void> {
  let handle;
  try {
    // O_NONBLOCK: a FIFO swapped in since readdir must not block the open.
    handle = await open(path.join(ws, rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ELOOP: it became a symlink; ENOENT: it went away. EACCES: a mode-000 file of a non-root
    // runner; it may still carry a bit we cannot see without lstat, so it is reported as kept.
    if (code === 'ELOOP' || code === 'ENOENT') return;
    if (code === 'EACCES') {
      sweep.kept.push(rel);
      return;
    }
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || (st.mode & SET_ID_BITS) === 0) return;
    try {
      await handle.chmod(st.mode & 0o7777 & ~SET_ID_BITS);
      sweep.cleared.push(rel);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
      sweep.kept.push(rel);
    }
  } finally {
    await handle.close();
  }
}

function isGoneOrDenied(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES';
}

/**
 * The outcome with a note of the sweep appended (when it found anything), so the recorded
 * output and every prompt that quotes its tail say what was changed on the host.
 */
export function withSetIdSweepNote(outcome: TestRunOutcome, sweep: SetIdSweep): TestRunOutcome {
  const lines: string[] = [];
  const names = (xs: string[]) => (xs.length > 10 ? `${xs.slice(0, 10).join(', ')} and ${xs.length - 10} more` : xs.join(', '));
  if (sweep.cleared.length) lines.push(`[sandbox] cleared the setuid/setgid bits of ${sweep.cleared.length} file(s) the tests left: ${names(sweep.cleared)}`);
  if (sweep.kept.length) lines.push(`[sandbox] could not clear or check the setuid/setgid bits of ${sweep.kept.length} file(s) this runner may not change: ${names(sweep.kept)}`);
  if (!lines.length) return outcome;
  const note = `\n${lines.join('\n')}\n`;
  const tail = Buffer.from(outcome.stdout_tail + note);
  return {
    ...outcome,
    output: outcome.output + note,
    stdout_tail: tail.subarray(Math.max(0, tail.length - STDOUT_TAIL_BYTES)).toString('utf8'),
  };
}
