import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PathEscapeError } from './path-escape.error';
import { writeFileChanges } from './safe-write';
import { listFileTree, prepareEmptyWorkspace, readWorkspaceFiles } from './workspace';

describe('workspace', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rt-sandbox-ws-'));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('prepareEmptyWorkspace', () => {
    it('creates <root>/<runId>/workspace, empty', async () => {
      const ws = await prepareEmptyWorkspace(path.join(root, 'runs'), 'run-1');
      expect(ws).toBe(path.join(root, 'runs', 'run-1', 'workspace'));
      expect((await stat(ws)).isDirectory()).toBe(true);
      expect(await listFileTree(ws)).toEqual([]);
    });

    it('is idempotent and does not wipe existing files', async () => {
      const first = await prepareEmptyWorkspace(root, 'run-1');
      await writeFile(path.join(first, 'kept.py'), 'x');
      const second = await prepareEmptyWorkspace(root, 'run-1');
      expect(second).toBe(first);
      expect(await readFile(path.join(second, 'kept.py'), 'utf8')).toBe('x');
    });

    it.each(['', '..', '../x', 'a/b', '/abs', '.hidden'])('refuses run id %j', async (runId) => {
      await expect(prepareEmptyWorkspace(root, runId)).rejects.toThrow(/runId/);
    });
  });

  describe('listFileTree', () => {
    it('lists sorted relative file paths and skips generated directories', async () => {
      const ws = await prepareEmptyWorkspace(root, 'r');
      await writeFileChanges(ws, [
        { path: 'src/b.py', content: '' },
        { path: 'src/a.py', content: '' },
        { path: 'README.md', content: '' },
        { path: 'tests/test_a.py', content: '' },
        { path: 'src/__pycache__/a.cpython-311.pyc', content: '' },
        { path: '.pytest_cache/v/cache/lastfailed', content: '' },
        { path: 'web/node_modules/x/index.js', content: '' },
      ]);
      // Planted directly: writes refuse .git. A worktree's .git is a file, a plain repository's a directory.
      await mkdir(path.join(ws, '.git'));
      await writeFile(path.join(ws, '.git/HEAD'), '');
      await writeFile(path.join(ws, 'src/.git'), 'gitdir: /elsewhere\n');
      expect(await listFileTree(ws)).toEqual(['README.md', 'src/a.py', 'src/b.py', 'tests/test_a.py']);
    });

    it('lists a symlink as an entry without following it', async () => {
      const ws = await prepareEmptyWorkspace(root, 'r');
      const outside = path.join(root, 'outside');
      await mkdir(outside);
      await writeFile(path.join(outside, 'host-file'), '');
      await symlink(outside, path.join(ws, 'link'));
      expect(await listFileTree(ws)).toEqual(['link']);
    });

    it('returns at most maxEntries paths', async () => {
      const ws = await prepareEmptyWorkspace(root, 'r');
      await writeFileChanges(
        ws,
        Array.from({ length: 20 }, (_, i) => ({ path: `f${String(i).padStart(2, '0')}.txt`, content: '' })),
      );
      expect(await listFileTree(ws, { maxEntries: 5 })).toEqual(['f00.txt', 'f01.txt', 'f02.txt', 'f03.txt', 'f04.txt']);
      expect(await listFileTree(ws)).toHaveLength(20);
    });
  });

  describe('readWorkspaceFiles', () => {
    it('reads files and truncates at maxBytesPerFile', async () => {
      const ws = await prepareEmptyWorkspace(root, 'r');
      await writeFileChanges(ws, [
        { path: 'small.py', content: 'print(1)\n' },
        { path: 'big.txt', content: 'x'.repeat(100) },
      ]);
      expect(await readWorkspaceFiles(ws, ['small.py', './big.txt'], { maxBytesPerFile: 10 })).toEqual([
        { path: 'small.py', content: 'print(1)\n', truncated: false, bytes: 9 },
        { path: 'big.txt', content: 'x'.repeat(10), truncated: true, bytes: 100 },
      ]);
    });

    it('defaults to 64 KiB per file', async () => {
      const ws = await prepareEmptyWorkspace(root, 'r');
      await writeFileChanges(ws, [{ path: 'huge.txt', content: 'y'.repeat(70 * 1024) }]);
      const [file] = await readWorkspaceFiles(ws, ['huge.txt']);
      expect(file.content).toHaveLength(64 * 1024);
      expect(file.truncated).toBe(true);
    });

    it('refuses to read through a symlink that points outside', async () => {
      const ws = await prepareEmptyWorkspace(root, 'r');
      const outside = path.join(root, 'outside');
      await mkdir(outside);
      await writeFile(path.join(outside, 'id_rsa'), 'PRIVATE');
      await symlink(path.join(outside, 'id_rsa'), path.join(ws, 'key'));
      await symlink(outside, path.join(ws, 'dir'));
      await expect(readWorkspaceFiles(ws, ['key'])).rejects.toThrow(PathEscapeError);
      await expect(readWorkspaceFiles(ws, ['dir/id_rsa'])).rejects.toThrow(/symlink dir points outside the workspace/);
    });

    it.each(['../r/workspace/x', '/etc/passwd', 'a/../../etc/passwd'])('refuses %j', async (p) => {
      const ws = await prepareEmptyWorkspace(root, 'r');
      await expect(readWorkspaceFiles(ws, [p])).rejects.toMatchObject({ code: 'PATH_ESCAPE', path: p });
    });

    it('reports a missing file by name', async () => {
      const ws = await prepareEmptyWorkspace(root, 'r');
      await expect(readWorkspaceFiles(ws, ['nope.py'])).rejects.toMatchObject({ code: 'ENOENT', path: 'nope.py' });
    });
  });
});
