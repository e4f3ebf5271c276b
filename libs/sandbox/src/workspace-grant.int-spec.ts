import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { grantWorkspaceToSandbox } from './workspace-grant';

const SANDBOX = { uid: 10001, gid: 10001 };
const isRoot = process.getuid?.() === 0;

/** Can uid/gid 10001 write this path, judging by owner, group and mode alone? */
async function sandboxCanWrite(p: string): Promise<boolean> {
  const st = await stat(p);
  if (st.uid === SANDBOX.uid) return (st.mode & 0o200) !== 0;
  if (st.gid === SANDBOX.gid) return (st.mode & 0o020) !== 0;
  return (st.mode & 0o002) !== 0;
}

describe('grantWorkspaceToSandbox', () => {
  let root: string;
  let ws: string;
  const entries = ['.', 'pkg', 'pkg/sub', 'a.py', 'pkg/sub/b.py'];

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rt-grant-'));
    ws = path.join(root, 'workspace');
    await mkdir(path.join(ws, 'pkg', 'sub'), { recursive: true, mode: 0o755 });
    await chmod(ws, 0o755);
    await writeFile(path.join(ws, 'a.py'), 'x', { mode: 0o644 });
    await writeFile(path.join(ws, 'pkg', 'sub', 'b.py'), 'y', { mode: 0o644 });
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('makes every directory and file writable for the sandbox user, owner unchanged', async () => {
    const owners = await Promise.all(entries.map(async (e) => (await stat(path.join(ws, e))).uid));
    for (const e of entries) expect(await sandboxCanWrite(path.join(ws, e))).toBe(false);

    const grant = await grantWorkspaceToSandbox(ws, SANDBOX);
    expect(grant.changed).toBe(entries.length);
    expect(grant.via).toBe(isRoot ? 'group' : 'others');
    for (const [i, e] of entries.entries()) {
      expect(await sandboxCanWrite(path.join(ws, e))).toBe(true);
      expect((await stat(path.join(ws, e))).uid).toBe(owners[i]);
    }
    if (isRoot) {
      // setgid: files the tests create inherit the sandbox group, so the next grant has less to do.
      expect((await stat(path.join(ws, 'pkg'))).mode & 0o2000).toBe(0o2000);
      expect((await stat(path.join(ws, 'a.py'))).mode & 0o7777).toBe(0o664);
    }
  });

  it('is idempotent: a second grant changes nothing', async () => {
    await grantWorkspaceToSandbox(ws, SANDBOX);
    expect((await grantWorkspaceToSandbox(ws, SANDBOX)).changed).toBe(0);
  });

  it('does not touch what a symlink points to, inside or outside the workspace', async () => {
    const outsideFile = path.join(root, 'host-file');
    const outsideDir = path.join(root, 'host-dir');
    await writeFile(outsideFile, 'secret', { mode: 0o600 });
    await mkdir(outsideDir, { mode: 0o700 });
    await writeFile(path.join(outsideDir, 'inner'), 'z', { mode: 0o600 });
    await symlink(outsideFile, path.join(ws, 'to-file'));
    await symlink(outsideDir, path.join(ws, 'to-dir'));
    const before = await Promise.all([outsideFile, outsideDir, path.join(outsideDir, 'inner')].map((p) => stat(p)));

    await grantWorkspaceToSandbox(ws, SANDBOX);

    const after = await Promise.all([outsideFile, outsideDir, path.join(outsideDir, 'inner')].map((p) => stat(p)));
    for (const [i, st] of after.entries()) {
      expect(st.mode).toBe(before[i].mode);
      expect(st.gid).toBe(before[i].gid);
    }
    expect((await lstat(path.join(ws, 'to-file'))).isSymbolicLink()).toBe(true);
  });

  it('skips a FIFO instead of blocking on it', async () => {
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    const started = Date.now();
    await grantWorkspaceToSandbox(ws, SANDBOX);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await sandboxCanWrite(path.join(ws, 'a.py'))).toBe(true);
  });
});
