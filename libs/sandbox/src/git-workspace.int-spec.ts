import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gitEnv } from './git-command';
import { openRepoWorkspace, prepareRepoWorkspace } from './git-workspace';
import { RepoUnusableError } from './repo-unusable.error';
import { writeFileChanges } from './safe-write';
import { listFileTree } from './workspace';
import { commitWorkspace, workspaceDiff, workspaceDiffStat } from './workspace-commit';

/** Real git, real directories: the original repository must come out of every test unchanged. */

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '--no-optional-locks', ...args], { cwd, env: gitEnv(), encoding: 'utf8' });

const sha = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

/** A Python package with its own tests, committed on main. */
async function makeRepo(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  git(dir, 'init', '-q', '--initial-branch=main');
  await writeFile(path.join(dir, 'calc.py'), 'def add(a, b):\n    return a + b\n');
  await writeFile(path.join(dir, 'test_calc.py'), 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'calc');
  return dir;
}

/** Everything about a repository a run could change by mistake. */
async function snapshot(repo: string) {
  const files: Record<string, string> = {};
  for (const f of ['calc.py', 'test_calc.py', '.git/index', '.git/HEAD', '.git/config']) files[f] = sha(await readFile(path.join(repo, f)));
  const exclude = path.join(repo, '.git/info/exclude');
  files['.git/info/exclude'] = existsSync(exclude) ? sha(await readFile(exclude)) : 'absent';
  return {
    head: git(repo, 'rev-parse', 'HEAD').trim(),
    branch: git(repo, 'symbolic-ref', '--short', 'HEAD').trim(),
    status: git(repo, 'status', '--porcelain', '--untracked-files=all'),
    files,
  };
}

describe('prepareRepoWorkspace', () => {
  let tmp: string;
  let root: string;

  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'rt-gitws-'));
    root = path.join(tmp, 'workspaces');
  });

  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  describe('a git repository', () => {
    it('becomes a worktree on roundtable/<runId> at the repository HEAD', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const head = git(repo, 'rev-parse', 'HEAD').trim();

      const ws = await prepareRepoWorkspace(root, 'run1', repo);

      expect(ws).toMatchObject({ path: path.join(root, 'run1', 'workspace'), source: 'worktree', origin: repo, notes: [] });
      expect(ws.git).toMatchObject({ branch: 'roundtable/run1', baseCommit: head });
      expect(git(ws.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('roundtable/run1');
      expect(git(repo, 'rev-parse', 'roundtable/run1').trim()).toBe(head);
      expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${ws.path}`);
      // The worktree's .git file is not a project file.
      expect(await listFileTree(ws.path)).toEqual(['calc.py', 'test_calc.py']);
    });

    it('leaves the repository HEAD, branch, index, status, config and files unchanged through writes and commits', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const before = await snapshot(repo);
      const ws = await prepareRepoWorkspace(root, 'run1', repo);

      await writeFileChanges(ws.path, [
        { path: 'calc.py', content: 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n' },
        { path: 'test_mul.py', content: 'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n' },
      ]);
      const first = await commitWorkspace(ws, { message: 'I1: mul' });
      await writeFileChanges(ws.path, [{ path: 'calc.py', content: 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return b * a\n' }]);
      const second = await commitWorkspace(ws, { message: 'I1f1: mul' });

      expect(first.committed && second.committed).toBe(true);
      expect(await snapshot(repo)).toEqual(before);
      expect(git(repo, 'log', '--format=%s', 'roundtable/run1').trim().split('\n')).toEqual(['I1f1: mul', 'I1: mul', 'calc']);
      expect(git(repo, 'log', '--format=%an <%ae>', '-1', 'roundtable/run1').trim()).toBe('roundtable <roundtable@localhost>');
    });

    it('runs none of the repository hooks (post-checkout on add, pre-commit and post-commit on commit)', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const marker = path.join(tmp, 'hook-ran');
      for (const hook of ['post-checkout', 'pre-commit', 'post-commit']) {
        const file = path.join(repo, '.git/hooks', hook);
        await writeFile(file, `#!/bin/sh\necho ${hook} >> ${marker}\n`);
        await chmod(file, 0o755);
      }
      git(repo, 'checkout', '-q', '-b', 'probe'); // the hooks do run for git itself
      git(repo, 'checkout', '-q', 'main');
      expect(existsSync(marker)).toBe(true);
      await unlink(marker);

      const ws = await prepareRepoWorkspace(root, 'run1', repo);
      await writeFileChanges(ws.path, [{ path: 'x.py', content: 'x = 1\n' }]);
      expect((await commitWorkspace(ws, { message: 'I1' })).committed).toBe(true);
      expect(existsSync(marker)).toBe(false);
    });

    it('commits on the run branch even after the tests rewrite the workspace .git file to point at the repository', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const before = await snapshot(repo);
      const ws = await prepareRepoWorkspace(root, 'run1', repo);
      await writeFile(path.join(ws.path, '.git'), `gitdir: ${path.join(repo, '.git')}\n`);
      await writeFileChanges(ws.path, [{ path: 'evil.py', content: 'x = 1\n' }]);

      const { commit } = await commitWorkspace(ws, { message: 'I1' });

      expect(git(repo, 'rev-parse', 'roundtable/run1').trim()).toBe(commit);
      expect(git(repo, 'ls-tree', '--name-only', 'roundtable/run1')).toContain('evil.py');
      expect(await snapshot(repo)).toEqual(before);
    });

    it('excludes caches from commits without touching the repository info/exclude', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const exclude = await readFile(path.join(repo, '.git/info/exclude')).catch(() => null);
      const ws = await prepareRepoWorkspace(root, 'run1', repo);
      const caches = [
        '__pycache__/calc.cpython-311.pyc',
        'pkg/__pycache__/m.cpython-311.pyc',
        '.pytest_cache/v/cache/lastfailed',
        'node_modules/.cache/babel/x.json',
        'web/node_modules/.cache/y',
        'stray.pyc',
        '.roundtable/state.json',
      ];
      for (const c of caches) {
        await mkdir(path.dirname(path.join(ws.path, c)), { recursive: true });
        await writeFile(path.join(ws.path, c), 'cache');
      }
      await writeFileChanges(ws.path, [{ path: 'pkg/m.py', content: 'M = 1\n' }]);

      await commitWorkspace(ws, { message: 'I1' });

      const tracked = git(ws.path, 'ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n');
      expect(tracked.sort()).toEqual(['calc.py', 'pkg/m.py', 'test_calc.py']);
      expect(await readFile(path.join(repo, '.git/info/exclude')).catch(() => null)).toEqual(exclude);
    });

    it('commits a file the engineer wrote even when a .gitignore matches it', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const ws = await prepareRepoWorkspace(root, 'run1', repo);
      await writeFileChanges(ws.path, [
        { path: '.gitignore', content: 'build/\n' },
        { path: 'build/gen.py', content: 'G = 1\n' },
      ]);
      await writeFile(path.join(ws.path, 'unlisted.log'), 'not the engineer\'s');
      await mkdir(path.join(ws.path, 'build/out'), { recursive: true });
      await writeFile(path.join(ws.path, 'build/out/x.o'), 'ignored byproduct');

      await commitWorkspace(ws, { message: 'I1', paths: ['.gitignore', 'build/gen.py'] });

      const tracked = git(ws.path, 'ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n');
      expect(tracked).toContain('build/gen.py');
      expect(tracked).not.toContain('build/out/x.o');
    });

    it('the cumulative diff holds every round; the round diffstat only its own', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const ws = await prepareRepoWorkspace(root, 'run1', repo);
      await writeFileChanges(ws.path, [
        { path: 'calc.py', content: 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n' },
        { path: 'test_mul.py', content: 'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n' },
      ]);
      const r1 = await commitWorkspace(ws, { message: 'I1' });
      await writeFileChanges(ws.path, [{ path: 'calc.py', content: 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n' }]);
      const r2 = await commitWorkspace(ws, { message: 'I1f1' });

      const diff = await workspaceDiff(ws);
      expect(diff.truncated).toBe(false);
      expect(diff.text).toContain('+++ b/test_mul.py');
      expect(diff.text).toContain('+++ b/calc.py');
      expect(diff.text).toContain('+    return a * b');
      expect(diff.text.split('\n').filter((l) => l.startsWith('+') && l.includes('return'))).toEqual(['+    return a * b']); // round 1's wrong body is gone
      expect(await workspaceDiffStat(ws)).toEqual([
        { path: 'calc.py', added: 4, deleted: 0 },
        { path: 'test_mul.py', added: 5, deleted: 0 },
      ]);
      expect(await workspaceDiffStat(ws, { from: r1.commit, to: r2.commit })).toEqual([{ path: 'calc.py', added: 1, deleted: 1 }]);
      expect((await workspaceDiff(ws, { maxBytes: 40 })).truncated).toBe(true);
    });

    it('nothing to commit is fine: HEAD stays', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const ws = await prepareRepoWorkspace(root, 'run1', repo);
      await writeFileChanges(ws.path, [{ path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' }]); // same bytes
      expect(await commitWorkspace(ws, { message: 'I1' })).toEqual({ commit: ws.git?.baseCommit, committed: false });
    });

    it('is idempotent: a second call returns the same workspace and keeps its commits', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const first = await prepareRepoWorkspace(root, 'run1', repo);
      await writeFileChanges(first.path, [{ path: 'x.py', content: 'x = 1\n' }]);
      const { commit } = await commitWorkspace(first, { message: 'I1' });

      const second = await prepareRepoWorkspace(root, 'run1', repo);

      expect(second).toEqual(first);
      expect(await openRepoWorkspace(root, 'run1')).toEqual(first);
      expect(git(repo, 'rev-parse', 'roundtable/run1').trim()).toBe(commit);
    });

    it('rebuilds a prepare that died after the worktree was added, reusing its branch', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      const first = await prepareRepoWorkspace(root, 'run1', repo);
      await rm(path.join(root, 'run1', 'workspace.json')); // as if the process died before recording it

      const again = await prepareRepoWorkspace(root, 'run1', repo);

      expect(again.path).toBe(first.path);
      expect(again.git?.baseCommit).toBe(first.git?.baseCommit);
      expect(git(again.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('roundtable/run1');
      expect(await listFileTree(again.path)).toEqual(['calc.py', 'test_calc.py']);
    });

    it('a worktree starts at HEAD and says so when the repository has uncommitted changes, which stay where they are', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      await writeFile(path.join(repo, 'calc.py'), 'def add(a, b):\n    return 0\n');
      const ws = await prepareRepoWorkspace(root, 'run1', repo);
      expect(ws.notes).toEqual([`1 uncommitted change(s) in ${repo} are not in the workspace: it starts at the HEAD commit`]);
      expect(await readFile(path.join(ws.path, 'calc.py'), 'utf8')).toBe('def add(a, b):\n    return a + b\n');
      expect(await readFile(path.join(repo, 'calc.py'), 'utf8')).toBe('def add(a, b):\n    return 0\n');
    });
  });

  describe('a plain directory', () => {
    it('is copied without caches, links kept as written, then committed as the base; the original is untouched', async () => {
      const dir = path.join(tmp, 'plain');
      await mkdir(path.join(dir, 'pkg/__pycache__'), { recursive: true });
      await mkdir(path.join(dir, 'node_modules/.cache'), { recursive: true });
      await mkdir(path.join(dir, 'node_modules/lib'), { recursive: true });
      await writeFile(path.join(dir, 'pkg/m.py'), 'M = 1\n');
      await writeFile(path.join(dir, 'pkg/__pycache__/m.cpython-311.pyc'), 'c');
      await writeFile(path.join(dir, 'node_modules/.cache/x'), 'c');
      await writeFile(path.join(dir, 'node_modules/lib/index.js'), 'module.exports = 1;\n');
      await writeFile(path.join(dir, 'old.pyc'), 'c');
      await symlink('pkg/m.py', path.join(dir, 'alias.py'));

      const ws = await prepareRepoWorkspace(root, 'run1', dir);

      expect(ws).toMatchObject({ source: 'copy', origin: dir, notes: [] });
      expect(await listFileTree(ws.path)).toEqual(['alias.py', 'pkg/m.py']); // node_modules is listed by nobody, copied all the same
      expect(existsSync(path.join(ws.path, 'node_modules/lib/index.js'))).toBe(true);
      expect(existsSync(path.join(ws.path, 'node_modules/.cache'))).toBe(false);
      expect(existsSync(path.join(ws.path, 'pkg/__pycache__'))).toBe(false);
      expect(existsSync(path.join(ws.path, 'old.pyc'))).toBe(false);
      expect(await readlink(path.join(ws.path, 'alias.py'))).toBe('pkg/m.py');
      expect(git(ws.path, 'ls-tree', '-r', '--name-only', ws.git!.baseCommit).trim().split('\n').sort()).toEqual(['alias.py', 'node_modules/lib/index.js', 'pkg/m.py']);
      expect(git(ws.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('roundtable/run1');
      // The repository lives beside the workspace, out of the sandbox's mount.
      expect(ws.git!.gitDir).toBe(path.join(root, 'run1', 'git'));
      expect(existsSync(path.join(dir, '.git'))).toBe(false);

      await writeFileChanges(ws.path, [{ path: 'pkg/m.py', content: 'M = 2\n' }]);
      await commitWorkspace(ws, { message: 'I1' });
      expect(await workspaceDiffStat(ws)).toEqual([{ path: 'pkg/m.py', added: 1, deleted: 1 }]);
      expect(await readFile(path.join(dir, 'pkg/m.py'), 'utf8')).toBe('M = 1\n');
    });

    it('leaves out what the owner keeps from other users (a 0700 directory, a 0640 file), clears setuid bits, and says so', async () => {
      const dir = path.join(tmp, 'plain');
      await mkdir(path.join(dir, 'private/deeper'), { recursive: true });
      await mkdir(path.join(dir, 'listless'));
      await writeFile(path.join(dir, 'm.py'), 'M = 1\n');
      await writeFile(path.join(dir, 'private/secret.txt'), 'hunter2\n');
      await writeFile(path.join(dir, 'private/deeper/more.txt'), 'more\n');
      await writeFile(path.join(dir, 'listless/x.py'), 'X = 1\n');
      await writeFile(path.join(dir, '.env'), 'TOKEN=abc\n');
      await writeFile(path.join(dir, 'tool'), '#!/bin/sh\n');
      await chmod(path.join(dir, 'private'), 0o700);
      await chmod(path.join(dir, 'listless'), 0o711); // enterable, not listable: still not offered
      await chmod(path.join(dir, '.env'), 0o640);
      await chmod(path.join(dir, 'tool'), 0o4755);

      const ws = await prepareRepoWorkspace(root, 'run1', dir);

      expect(await listFileTree(ws.path)).toEqual(['m.py', 'tool']);
      expect(existsSync(path.join(ws.path, 'private'))).toBe(false);
      expect(existsSync(path.join(ws.path, '.env'))).toBe(false);
      expect((await stat(path.join(ws.path, 'tool'))).mode & 0o7777).toBe(0o755);
      expect(git(ws.path, 'ls-tree', '-r', '--name-only', ws.git!.baseCommit).trim().split('\n').sort()).toEqual(['m.py', 'tool']);
      expect(ws.notes).toEqual([
        '3 path(s) not readable by others in the source were left out of the copy (the sandbox gets only what the owner lets any user read; chmod o+r a file, o+rx a directory, to include it): .env, listless/, private/',
        'the setuid/setgid bits of 1 copied file(s) were cleared: tool',
      ]);
      expect((await stat(path.join(dir, 'private'))).mode & 0o777).toBe(0o700); // the source is untouched
    });

    it('a subdirectory of a git repository is copied, not checked out, and says so', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      await mkdir(path.join(repo, 'sub'));
      await writeFile(path.join(repo, 'sub/s.py'), 'S = 1\n');
      const ws = await prepareRepoWorkspace(root, 'run1', path.join(repo, 'sub'));
      expect(ws.source).toBe('copy');
      expect(ws.notes[0]).toMatch(/is a subdirectory of the git repository/);
      expect(await listFileTree(ws.path)).toEqual(['s.py']);
    });
  });

  describe('no repository (greenfield)', () => {
    it('is an empty directory with git and an empty base commit', async () => {
      const ws = await prepareRepoWorkspace(root, 'run1');
      expect(ws).toMatchObject({ source: 'empty', origin: null, notes: [] });
      expect(await listFileTree(ws.path)).toEqual([]);
      expect(git(ws.path, 'ls-tree', '-r', '--name-only', ws.git!.baseCommit)).toBe('');

      await writeFileChanges(ws.path, [{ path: 'dd.py', content: 'def f():\n    return 1\n' }]);
      await commitWorkspace(ws, { message: 'I1' });
      expect(await workspaceDiffStat(ws)).toEqual([{ path: 'dd.py', added: 2, deleted: 0 }]);
    });

    it('never wipes files already in the workspace', async () => {
      await mkdir(path.join(root, 'run1', 'workspace'), { recursive: true });
      await writeFile(path.join(root, 'run1', 'workspace', 'kept.py'), 'K = 1\n');
      const ws = await prepareRepoWorkspace(root, 'run1');
      expect(await readFile(path.join(ws.path, 'kept.py'), 'utf8')).toBe('K = 1\n');
    });
  });

  describe('without git on the test-runner', () => {
    let savedPath: string | undefined;
    beforeEach(async () => {
      savedPath = process.env.PATH;
      await makeRepo(path.join(tmp, 'repo')); // while git is still there
      await mkdir(path.join(tmp, 'plain'));
      await writeFile(path.join(tmp, 'plain/p.py'), 'P = 1\n');
      process.env.PATH = path.join(tmp, 'no-bin');
    });
    afterEach(() => {
      process.env.PATH = savedPath;
    });

    it('greenfield and plain directories still work, without commits, and say so', async () => {
      const empty = await prepareRepoWorkspace(root, 'run1');
      expect(empty).toMatchObject({ source: 'empty', git: null, notes: ['git is not installed on the test-runner: no commits or diffs for this run'] });
      const copy = await prepareRepoWorkspace(root, 'run2', path.join(tmp, 'plain'));
      expect(copy).toMatchObject({ source: 'copy', git: null });
      expect(await listFileTree(copy.path)).toEqual(['p.py']);
    });

    it('a git repository is refused rather than copied without its history', async () => {
      await expect(prepareRepoWorkspace(root, 'run1', path.join(tmp, 'repo'))).rejects.toThrow(/is a git repository, but git is not installed on the test-runner/);
    });
  });

  describe('refusals', () => {
    it.each([
      ['a relative path', () => 'repo', /is a relative path/],
      ['a missing directory', (t: string) => path.join(t, 'nope'), /does not exist on the test-runner/],
    ])('refuses %s', async (_, repo, reason) => {
      await expect(prepareRepoWorkspace(root, 'run1', repo(tmp))).rejects.toThrow(reason);
      await expect(prepareRepoWorkspace(root, 'run1', repo(tmp))).rejects.toBeInstanceOf(RepoUnusableError);
    });

    it('refuses a repository that contains the workspace root', async () => {
      const repo = await makeRepo(path.join(tmp, 'repo'));
      await expect(prepareRepoWorkspace(path.join(repo, 'runs'), 'run1', repo)).rejects.toThrow(/contains the workspace root/);
      expect(git(repo, 'branch', '--list', 'roundtable/*')).toBe('');
    });

    it('refuses a bare repository', async () => {
      const bare = path.join(tmp, 'bare.git');
      git(tmp, 'init', '-q', '--bare', bare);
      await expect(prepareRepoWorkspace(root, 'run1', bare)).rejects.toThrow(/bare repository/);
    });
  });
});
