import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import * as path from 'node:path';

export interface WorkspaceGrant {
  /** 'group': the tree now belongs to the sandbox's group; 'others': it had to be opened to everyone. */
  via: 'none' | 'group' | 'others';
  /** Files and directories whose group or mode was changed. */
  changed: number;
}

/**
 * Lets the container's unprivileged user (uid/gid 10001) write the bind-mounted workspace.
 *
 * The owner is never changed: git refuses to work in a tree owned by another user ("dubious
 * ownership"), and the test-runner must keep writing the engineer's files. Instead every
 * directory and regular file gets the sandbox's group with group write (directories also
 * setgid, so files the tests create stay in that group). When this process may not give files
 * to that group (not root, not a member), the tree is opened to others instead; the workspace
 * root's parent (`<root>/<runId>`) is what keeps other host users out then.
 *
 * Symlinks, FIFOs and devices are skipped, and every change goes through a descriptor opened
 * with O_NOFOLLOW: a link planted by a previous test run must not make us chmod a host file.
 */
export async function grantWorkspaceToSandbox(ws: string, sandbox: { uid: number; gid: number }): Promise<WorkspaceGrant> {
  // Running as the sandbox user already: the files are its own.
  if (process.getuid?.() === sandbox.uid) return { via: 'none', changed: 0 };
  const sandboxGid = sandbox.gid;
  let via: WorkspaceGrant['via'] = 'group';
  let changed = 0;
  const pending = [ws];

  while (pending.length > 0) {
    const dir = pending.pop() as string;
    const { isDir, changed: c, via: v } = await grantOne(dir, sandboxGid, via);
    via = v;
    changed += c;
    if (!isDir) continue;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(p);
      else if (entry.isFile()) {
        const r = await grantOne(p, sandboxGid, via);
        via = r.via;
        changed += r.changed;
      }
    }
  }
  return { via, changed };
}

async function grantOne(
  p: string,
  gid: number,
  via: WorkspaceGrant['via'],
): Promise<{ isDir: boolean; changed: number; via: WorkspaceGrant['via'] }> {
  let handle;
  try {
    // O_NONBLOCK: a FIFO swapped in since readdir must not block the open.
    handle = await open(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ELOOP: it became a symlink; ENOENT: it went away. Neither is ours to change.
    if (code === 'ELOOP' || code === 'ENOENT') return { isDir: false, changed: 0, via };
    throw err;
  }
  try {
    const st = await handle.stat();
    const isDir = st.isDirectory();
    if (!isDir && !st.isFile()) return { isDir: false, changed: 0, via };
    // Only root may change what it does not own; files a test created are the sandbox's already.
    const me = process.getuid?.();
    if (me !== undefined && me !== 0 && st.uid !== me) return { isDir, changed: 0, via };
    let changed = 0;

    if (via === 'group' && st.gid !== gid) {
      try {
        await handle.chown(st.uid, gid);
        changed = 1;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
        via = 'others';
      }
    }
    const write = via === 'group' ? 0o060 : 0o006;
    const exec = via === 'group' ? 0o010 : 0o001;
    const wanted = st.mode | write | (isDir ? exec | (via === 'group' ? 0o2000 : 0) : 0);
    if ((wanted & 0o7777) !== (st.mode & 0o7777)) {
      await handle.chmod(wanted & 0o7777);
      changed = 1;
    }
    return { isDir, changed, via };
  } finally {
    await handle.close();
  }
}
