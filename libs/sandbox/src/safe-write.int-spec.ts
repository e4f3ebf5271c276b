import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PathEscapeError } from './path-escape.error';
import { deleteWorkspaceFiles, writeFileChanges } from './safe-write';
import { prepareEmptyWorkspace } from './workspace';

/** Every file under dir with its content: compared before and after to prove nothing changed. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = entry.isFile() ? await readFile(full, 'utf8') : `<${entry.isDirectory() ? 'dir' : 'other'}>`;
  }
  return out;
}

describe('writeFileChanges', () => {
  let root: string;
  let ws: string;
  let outside: string;
  let outsideBefore: Record<string, string>;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rt-sandbox-write-'));
    ws = await prepareEmptyWorkspace(path.join(root, 'runs'), 'run1');
    outside = path.join(root, 'outside');
    await mkdir(path.join(outside, 'sub'), { recursive: true });
    await writeFile(path.join(outside, 'secret.txt'), 'original');
    outsideBefore = await snapshot(outside);
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function expectRejected(files: { path: string; content: string }[], badPath: string, reason: RegExp) {
    const err = await writeFileChanges(ws, files).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PathEscapeError);
    expect((err as PathEscapeError).code).toBe('PATH_ESCAPE');
    expect((err as PathEscapeError).path).toBe(badPath);
    expect((err as PathEscapeError).message).toContain(JSON.stringify(badPath));
    expect((err as PathEscapeError).message).toMatch(reason);
    expect(await snapshot(outside)).toEqual(outsideBefore);
  }

  it('writes nested files, creating parent directories', async () => {
    const res = await writeFileChanges(ws, [
      { path: 'src/pkg/mod.py', content: 'X = 1\n' },
      { path: './tests//test_mod.py', content: 'def test(): pass\n' },
      { path: 'README.md', content: 'hi' },
    ]);
    expect(res.written).toEqual(['src/pkg/mod.py', 'tests/test_mod.py', 'README.md']);
    expect(await readFile(path.join(ws, 'src/pkg/mod.py'), 'utf8')).toBe('X = 1\n');
    expect(await readFile(path.join(ws, 'tests/test_mod.py'), 'utf8')).toBe('def test(): pass\n');
  });

  it('overwrites an existing file in place', async () => {
    await writeFileChanges(ws, [{ path: 'a.py', content: 'old' }]);
    await writeFileChanges(ws, [{ path: 'a.py', content: 'new' }]);
    expect(await readFile(path.join(ws, 'a.py'), 'utf8')).toBe('new');
  });

  it.each([
    ['../x', /contains '\.\.'/],
    ['a/../../x', /contains '\.\.'/],
    ['/etc/x', /absolute path/],
    ['..\\x', /backslash/],
    ['C:/x', /drive letter/],
    ['', /empty path/],
    ['a\0b', /NUL byte/],
    ['.git/hooks/pre-commit', /inside \.git/],
    ['.git', /inside \.git/],
  ])('rejects %j', async (bad, reason) => {
    await expectRejected([{ path: bad, content: 'pwned' }], bad, reason);
  });

  it('rejects writing through a symlinked directory that points outside', async () => {
    await symlink(outside, path.join(ws, 'link'));
    await expectRejected([{ path: 'link/sub/evil.txt', content: 'pwned' }], 'link/sub/evil.txt', /symlink link points outside the workspace/);
    await expectRejected([{ path: 'link/secret.txt', content: 'pwned' }], 'link/secret.txt', /symlink link points outside the workspace/);
  });

  it('rejects a symlink deeper in the path that points outside', async () => {
    await mkdir(path.join(ws, 'a/b'), { recursive: true });
    await symlink(path.join(outside, 'sub'), path.join(ws, 'a/b/c'));
    await expectRejected([{ path: 'a/b/c/x.py', content: 'pwned' }], 'a/b/c/x.py', /symlink a\/b\/c points outside/);
  });

  it('rejects a target file that is itself a symlink to a file outside', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'conftest.py'));
    await expectRejected([{ path: 'conftest.py', content: 'pwned' }], 'conftest.py', /symlink conftest\.py points outside/);
  });

  it('rejects a dangling symlink, which would otherwise create its target outside', async () => {
    await symlink(path.join(outside, 'new-file.txt'), path.join(ws, 'dangling'));
    await expectRejected([{ path: 'dangling', content: 'pwned' }], 'dangling', /dangling/);
    await expect(lstat(path.join(outside, 'new-file.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects a relative symlink that climbs out', async () => {
    await symlink('../../../outside', path.join(ws, 'up'));
    await expectRejected([{ path: 'up/x', content: 'pwned' }], 'up/x', /symlink up points outside/);
  });

  it('follows a symlink that stays inside the workspace', async () => {
    await mkdir(path.join(ws, 'real'));
    await symlink(path.join(ws, 'real'), path.join(ws, 'alias'));
    await writeFileChanges(ws, [{ path: 'alias/f.txt', content: 'ok' }]);
    expect(await readFile(path.join(ws, 'real/f.txt'), 'utf8')).toBe('ok');
  });

  it('validates the whole batch before writing anything', async () => {
    await expectRejected(
      [
        { path: 'good1.py', content: '1' },
        { path: 'dir/good2.py', content: '2' },
        { path: '../escape.py', content: 'pwned' },
      ],
      '../escape.py',
      /contains '\.\.'/,
    );
    expect(await readdir(ws)).toEqual([]);
    await expect(lstat(path.join(ws, '..', 'escape.py'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects a batch that writes both a/b as a file and a/b/c', async () => {
    await expectRejected(
      [
        { path: 'a/b', content: 'file' },
        { path: 'a/b/c', content: 'nested' },
      ],
      'a/b/c',
      /a\/b to be a directory/,
    );
    expect(await readdir(ws)).toEqual([]);
  });

  it('rejects writing onto an existing directory or through an existing file', async () => {
    await writeFileChanges(ws, [{ path: 'pkg/__init__.py', content: '' }]);
    await expectRejected([{ path: 'pkg', content: 'x' }], 'pkg', /is a directory/);
    await expectRejected([{ path: 'pkg/__init__.py/x', content: 'x' }], 'pkg/__init__.py/x', /pkg\/__init__\.py is not a directory/);
  });
});

describe('deleteWorkspaceFiles', () => {
  let root: string;
  let ws: string;
  let outside: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rt-sandbox-delete-'));
    ws = await prepareEmptyWorkspace(path.join(root, 'runs'), 'run1');
    outside = path.join(root, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(path.join(outside, 'secret.txt'), 'original');
    await writeFileChanges(ws, [
      { path: 'old.py', content: 'x' },
      { path: 'pkg/legacy.py', content: 'y' },
      { path: 'keep.py', content: 'z' },
    ]);
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it('deletes the named files and nothing else', async () => {
    expect(await deleteWorkspaceFiles(ws, ['old.py', 'pkg//legacy.py'])).toEqual({ deleted: ['old.py', 'pkg/legacy.py'], missing: [] });
    expect(await snapshot(ws)).toEqual({ 'keep.py': 'z', pkg: '<dir>' });
    // Asked again (a repeated apply job): nothing there, nothing to do, said so.
    expect(await deleteWorkspaceFiles(ws, ['old.py', 'pkg/legacy.py', 'gone/x.py'])).toEqual({ deleted: [], missing: ['old.py', 'pkg/legacy.py', 'gone/x.py'] });
    expect(await snapshot(ws)).toEqual({ 'keep.py': 'z', pkg: '<dir>' });
  });

  it('removes a symlink itself, never what it points at, even outside the workspace', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    await deleteWorkspaceFiles(ws, ['link.txt']);
    await expect(lstat(path.join(ws, 'link.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('original');
  });

  it.each([
    ['pkg', 'is a directory; list the files in it to delete them'],
    ['../outside/secret.txt', "contains '..'"],
    ['escape/secret.txt', 'resolves outside the workspace'],
  ])('refuses %s, naming why, and deletes nothing of the batch', async (bad, why) => {
    await symlink(outside, path.join(ws, 'escape'));
    const before = await snapshot(ws);
    const err = await deleteWorkspaceFiles(ws, ['old.py', bad]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PathEscapeError);
    expect((err as PathEscapeError).message).toContain(why);
    expect(await snapshot(ws)).toEqual(before);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('original');
  });
});
