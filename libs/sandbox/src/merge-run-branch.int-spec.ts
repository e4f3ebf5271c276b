import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { exportRunBranch } from './export-run-branch';
import { gitEnv } from './git-command';
import { prepareRepoWorkspace, type RepoWorkspace } from './git-workspace';
import { mergeRunBranch, type MergeOutcome } from './merge-run-branch';
import { writeFileChanges } from './safe-write';
import { commitWorkspace } from './workspace-commit';

/** Real git, real repositories: a refused merge must leave the original exactly as it was. */

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '--no-optional-locks', ...args], { cwd, env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const sha = (buf: Buffer | string) => createHash('sha256').update(buf).digest('hex');

const CALC = 'def add(a, b):\n    return a + b\n';
const CALC_WITH_MUL = `${CALC}\n\ndef mul(a, b):\n    return a * b\n`;
const TEST_MUL = 'from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n';

async function makeRepo(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  git(dir, 'init', '-q', '--initial-branch=main');
  await writeFile(path.join(dir, 'calc.py'), CALC);
  await writeFile(path.join(dir, 'README.md'), '# calc\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'calc');
  return dir;
}

/** Every file under dir but .git (content and mode), and the repository's index and HEAD: what a person would see change. */
async function treeHash(repo: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const entry of await readdir(path.join(repo, rel), { withFileTypes: true })) {
      const p = path.join(rel, entry.name);
      if (p === '.git') continue;
      if (entry.isDirectory()) await walk(p);
      else out[p] = `${(await lstat(path.join(repo, p))).mode.toString(8)} ${sha(await readFile(path.join(repo, p)))}`;
    }
  };
  await walk('');
  out['.git/index'] = sha(await readFile(path.join(repo, '.git/index')));
  out['.git/HEAD'] = sha(await readFile(path.join(repo, '.git/HEAD')));
  return out;
}

/** What a refused merge must not change. */
async function untouched(repo: string) {
  return {
    files: await treeHash(repo),
    refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    status: git(repo, 'status', '--porcelain', '--untracked-files=all'),
  };
}

const parents = (repo: string, rev: string) => git(repo, 'rev-list', '--parents', '-n', '1', rev).trim().split(' ').slice(1);
const tip = (repo: string, rev: string) => git(repo, 'rev-parse', rev).trim();

function merged(outcome: MergeOutcome) {
  if (!outcome.merged) throw new Error(`expected a merge, got ${outcome.code}: ${outcome.reason}`);
  return outcome;
}

describe('mergeRunBranch', () => {
  let tmp: string;
  let root: string;
  let repo: string;

  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'rt-merge-'));
    root = path.join(tmp, 'workspaces');
    repo = await makeRepo(path.join(tmp, 'repo'));
  });

  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  /** A worktree workspace with one round committed: mul in calc.py and a new test_mul.py. */
  async function runWithMul(): Promise<RepoWorkspace> {
    const ws = await prepareRepoWorkspace(root, 'run1', repo);
    await writeFileChanges(ws.path, [
      { path: 'calc.py', content: CALC_WITH_MUL },
      { path: 'test_mul.py', content: TEST_MUL },
    ]);
    expect((await commitWorkspace(ws, { message: 'I1: mul' })).committed).toBe(true);
    return ws;
  }

  /** A commit on a branch of the original made after the workspace, leaving main checked out and clean. */
  function commitInOriginal(branch: string, file: string, content: string) {
    const current = git(repo, 'symbolic-ref', '--short', 'HEAD').trim();
    if (branch !== current) git(repo, 'checkout', '-q', branch);
    execFileSync('sh', ['-c', 'cat > "$0"', file], { cwd: repo, input: content });
    git(repo, 'add', '--', file);
    git(repo, 'commit', '-q', '-m', `original: ${file}`);
    if (branch !== current) git(repo, 'checkout', '-q', current);
  }

  describe('into the checked-out branch', () => {
    it('merge: a merge commit with two parents, the working tree gets the run’s files and nothing else changes, an untracked file survives', async () => {
      const ws = await runWithMul();
      await writeFile(path.join(repo, 'notes.txt'), 'mine, untracked\n');
      const before = await treeHash(repo);
      const previous = tip(repo, 'main');
      const runTip = tip(repo, 'roundtable/run1');

      const outcome = merged(await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'Merge run1: mul' }));

      expect(outcome).toEqual({ merged: true, into: 'main', strategy: 'merge', commit: tip(repo, 'main'), previous, files: 2 });
      expect(parents(repo, 'main')).toEqual([previous, runTip]);
      expect(git(repo, 'log', '-1', '--format=%s|%an <%ae>|%cn <%ce>', 'main').trim()).toBe('Merge run1: mul|Roundtable <roundtable@localhost>|Roundtable <roundtable@localhost>');
      expect(await readFile(path.join(repo, 'calc.py'), 'utf8')).toBe(CALC_WITH_MUL);
      expect(await readFile(path.join(repo, 'test_mul.py'), 'utf8')).toBe(TEST_MUL);
      expect(await readFile(path.join(repo, 'notes.txt'), 'utf8')).toBe('mine, untracked\n');
      const after = await treeHash(repo);
      const changed = Object.keys(after).filter((f) => after[f] !== before[f]);
      expect(changed.sort()).toEqual(['.git/index', 'calc.py', 'test_mul.py']);
      expect(git(repo, 'status', '--porcelain', '--untracked-files=all')).toBe('?? notes.txt\n');
      expect(git(repo, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    });

    it('merge: three-way when main moved on without a conflict, keeping both sides', async () => {
      const ws = await runWithMul();
      commitInOriginal('main', 'CHANGELOG.md', 'added mul\n');
      const previous = tip(repo, 'main');

      const outcome = merged(await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'Merge run1' }));

      expect(parents(repo, 'main')).toEqual([previous, tip(repo, 'roundtable/run1')]);
      expect(outcome.files).toBe(2);
      expect(git(repo, 'ls-files').trim().split('\n').sort()).toEqual(['CHANGELOG.md', 'README.md', 'calc.py', 'test_mul.py']);
      expect(git(repo, 'status', '--porcelain')).toBe('');
    });

    it('ff: main becomes the run branch’s tip, no new commit', async () => {
      const ws = await runWithMul();
      const previous = tip(repo, 'main');

      const outcome = merged(await mergeRunBranch(ws, { into: 'main', strategy: 'ff', message: 'unused' }));

      expect(outcome).toEqual({ merged: true, into: 'main', strategy: 'ff', commit: tip(repo, 'roundtable/run1'), previous, files: 2 });
      expect(tip(repo, 'main')).toBe(tip(repo, 'roundtable/run1'));
      expect(await readFile(path.join(repo, 'test_mul.py'), 'utf8')).toBe(TEST_MUL);
      expect(git(repo, 'status', '--porcelain')).toBe('');
    });

    it('ff: refused when main moved on, main and its files as they were', async () => {
      const ws = await runWithMul();
      commitInOriginal('main', 'CHANGELOG.md', 'unrelated\n');
      const before = await untouched(repo);

      const outcome = await mergeRunBranch(ws, { into: 'main', strategy: 'ff', message: 'unused' });

      expect(outcome).toMatchObject({ merged: false, code: 'not_fast_forward' });
      expect(!outcome.merged && outcome.reason).toMatch(/main has moved on since the run started.*use strategy merge or squash/);
      expect(await untouched(repo)).toEqual(before);
    });

    it('squash: one commit with one parent holding the run’s changes, by the author given', async () => {
      const ws = await runWithMul();
      await writeFileChanges(ws.path, [{ path: 'calc.py', content: `${CALC_WITH_MUL}\n\ndef sub(a, b):\n    return a - b\n` }]);
      await commitWorkspace(ws, { message: 'I1f1: sub' });
      const previous = tip(repo, 'main');

      const outcome = merged(await mergeRunBranch(ws, { into: 'main', strategy: 'squash', message: 'mul and sub', author: { name: 'Ada', email: 'ada@example.test' } }));

      expect(parents(repo, 'main')).toEqual([previous]);
      expect(outcome.commit).toBe(tip(repo, 'main'));
      expect(git(repo, 'log', '-1', '--format=%s|%an <%ae>', 'main').trim()).toBe('mul and sub|Ada <ada@example.test>');
      expect(git(repo, 'diff', '--name-only', previous, 'main').trim().split('\n')).toEqual(['calc.py', 'test_mul.py']);
      expect(git(repo, 'rev-parse', 'main^{tree}').trim()).toBe(git(repo, 'rev-parse', 'roundtable/run1^{tree}').trim());
      expect(() => git(repo, 'merge-base', '--is-ancestor', 'roundtable/run1', 'main')).toThrow(); // the run's commits are not in main's history
      expect(await readFile(path.join(repo, 'calc.py'), 'utf8')).toContain('def sub');
    });

    it('refuses a dirty original (a changed file, a staged one) and leaves it as it was', async () => {
      const ws = await runWithMul();
      await writeFile(path.join(repo, 'README.md'), '# calc, edited\n');
      await writeFile(path.join(repo, 'staged.py'), 'S = 1\n');
      git(repo, 'add', 'staged.py');
      const before = await untouched(repo);

      const outcome = await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'm' });

      expect(outcome).toEqual({
        merged: false,
        code: 'dirty',
        reason: `${repo} has uncommitted changes (2): README.md, staged.py; commit or stash them there, then approve the merge again`,
      });
      expect(await untouched(repo)).toEqual(before);
    });

    it('names at most five dirty paths and counts the rest', async () => {
      const ws = await runWithMul();
      for (let i = 0; i < 7; i++) await writeFile(path.join(repo, `f${i}.py`), `F = ${i}\n`);
      git(repo, 'add', '-A');
      const outcome = await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'm' });
      expect(!outcome.merged && outcome.reason).toMatch(/uncommitted changes \(7\): f0\.py, f1\.py, f2\.py, f3\.py, f4\.py and 2 more;/);
    });

    it('refuses a conflict with a commit made to main after the workspace, naming the path; the original byte-for-byte unchanged', async () => {
      const ws = await runWithMul();
      commitInOriginal('main', 'calc.py', `${CALC}\n\ndef mul(a, b):\n    return sum([a] * b)\n`);
      const before = await untouched(repo);
      const mainBefore = tip(repo, 'main');

      const outcome = await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'm' });

      expect(outcome).toMatchObject({ merged: false, code: 'conflict' });
      expect(!outcome.merged && outcome.reason).toMatch(/^roundtable\/run1 conflicts with main, .* in 1 file\(s\): calc\.py; main is unchanged/);
      expect(tip(repo, 'main')).toBe(mainBefore);
      expect(git(repo, 'status', '--porcelain')).toBe('');
      expect(existsSync(path.join(repo, '.git/MERGE_HEAD'))).toBe(false);
      expect(await untouched(repo)).toEqual(before);
      // squash finds the same conflict
      expect(await mergeRunBranch(ws, { into: 'main', strategy: 'squash', message: 'm' })).toMatchObject({ merged: false, code: 'conflict' });
      expect(await untouched(repo)).toEqual(before);
    });

    it('refuses when the merge would overwrite an untracked or ignored file, leaving it in place', async () => {
      const ws = await runWithMul();
      await writeFile(path.join(repo, '.git/info/exclude'), 'test_mul.py\n');
      await writeFile(path.join(repo, 'test_mul.py'), 'my own, ignored\n');
      const before = await untouched(repo);

      const outcome = await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'm' });

      expect(outcome).toMatchObject({ merged: false, code: 'dirty' });
      expect(!outcome.merged && outcome.reason).toMatch(/the merge adds test_mul\.py, which is already in .* as untracked or ignored file\(s\); move them away/);
      expect(await readFile(path.join(repo, 'test_mul.py'), 'utf8')).toBe('my own, ignored\n');
      expect(await untouched(repo)).toEqual(before);
    });
  });

  describe('into a branch that is not checked out', () => {
    it('moves only that branch: the checked-out branch’s working tree, index and HEAD byte-for-byte unchanged', async () => {
      git(repo, 'branch', 'release');
      const ws = await runWithMul();
      commitInOriginal('release', 'RELEASE.md', 'v1\n');
      await writeFile(path.join(repo, 'notes.txt'), 'untracked\n');
      const before = await treeHash(repo);
      const mainBefore = tip(repo, 'main');
      const previous = tip(repo, 'release');

      const outcome = merged(await mergeRunBranch(ws, { into: 'release', strategy: 'merge', message: 'Merge run1 into release' }));

      expect(await treeHash(repo)).toEqual(before);
      expect(tip(repo, 'main')).toBe(mainBefore);
      expect(git(repo, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
      expect(outcome).toEqual({ merged: true, into: 'release', strategy: 'merge', commit: tip(repo, 'release'), previous, files: 2 });
      expect(parents(repo, 'release')).toEqual([previous, tip(repo, 'roundtable/run1')]);
      expect(git(repo, 'ls-tree', '-r', '--name-only', 'release').trim().split('\n').sort()).toEqual(['README.md', 'RELEASE.md', 'calc.py', 'test_mul.py']);
      expect(git(repo, 'show', 'release:calc.py')).toBe(CALC_WITH_MUL);
      expect(git(repo, 'reflog', '-1', '--format=%gs', 'release').trim()).toBe('roundtable: merge roundtable/run1 (merge)');
    });

    it('squash and ff work there too; a conflict there is refused with the branch unmoved', async () => {
      git(repo, 'branch', 'ffme');
      git(repo, 'branch', 'squashme');
      git(repo, 'branch', 'clash');
      const ws = await runWithMul();
      commitInOriginal('clash', 'test_mul.py', 'def test_mul():\n    assert False\n');
      const before = await treeHash(repo);

      expect(merged(await mergeRunBranch(ws, { into: 'ffme', strategy: 'ff', message: 'x' })).commit).toBe(tip(repo, 'roundtable/run1'));
      expect(tip(repo, 'ffme')).toBe(tip(repo, 'roundtable/run1'));
      merged(await mergeRunBranch(ws, { into: 'squashme', strategy: 'squash', message: 'squashed' }));
      expect(parents(repo, 'squashme')).toEqual([tip(repo, 'main')]);
      const clashBefore = tip(repo, 'clash');
      const outcome = await mergeRunBranch(ws, { into: 'clash', strategy: 'merge', message: 'x' });
      expect(outcome).toMatchObject({ merged: false, code: 'conflict' });
      expect(!outcome.merged && outcome.reason).toContain('in 1 file(s): test_mul.py;');
      expect(tip(repo, 'clash')).toBe(clashBefore);
      expect(await treeHash(repo)).toEqual(before);
    });

    it('refuses a branch checked out in another worktree of the repository, whose files would fall behind', async () => {
      git(repo, 'branch', 'release');
      const other = path.join(tmp, 'other');
      git(repo, 'worktree', 'add', '-q', other, 'release');
      const ws = await runWithMul();
      const before = await untouched(repo);

      const outcome = await mergeRunBranch(ws, { into: 'release', strategy: 'merge', message: 'x' });

      expect(outcome).toMatchObject({ merged: false, code: 'checked_out_elsewhere' });
      expect(!outcome.merged && outcome.reason).toContain(`release is checked out in ${other}, another worktree of ${repo}`);
      expect(await untouched(repo)).toEqual(before);
    });
  });

  describe('what there is nothing to do with', () => {
    it('no such branch to merge into', async () => {
      const ws = await runWithMul();
      expect(await mergeRunBranch(ws, { into: 'nope', strategy: 'merge', message: 'x' })).toEqual({
        merged: false,
        code: 'no_target',
        reason: `${repo} has no branch nope; create it there, or set merge.into to an existing branch`,
      });
      expect(await mergeRunBranch(ws, { into: '--force', strategy: 'merge', message: 'x' })).toMatchObject({ merged: false, code: 'no_target' });
      expect(await mergeRunBranch(ws, { into: 'a..b', strategy: 'merge', message: 'x' })).toMatchObject({ merged: false, code: 'no_target' });
    });

    it('a run branch that was deleted', async () => {
      const ws = await runWithMul();
      git(repo, 'worktree', 'remove', '--force', ws.path);
      git(repo, 'branch', '-D', 'roundtable/run1');
      expect(await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'x' })).toMatchObject({ merged: false, code: 'no_branch' });
    });

    it('a run that committed nothing, or one already merged', async () => {
      const ws = await prepareRepoWorkspace(root, 'run1', repo);
      expect(await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'x' })).toMatchObject({ merged: false, code: 'nothing_to_merge' });
      await writeFileChanges(ws.path, [{ path: 'x.py', content: 'X = 1\n' }]);
      await commitWorkspace(ws, { message: 'I1' });
      merged(await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'x' }));
      const mainAfter = tip(repo, 'main');
      expect(await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'x' })).toMatchObject({ merged: false, code: 'nothing_to_merge' });
      expect(tip(repo, 'main')).toBe(mainAfter);
    });

    it('a copy of a plain directory or a greenfield run: not_git, offering a bundle and a patch', async () => {
      const plain = path.join(tmp, 'plain');
      await mkdir(plain);
      await writeFile(path.join(plain, 'p.py'), 'P = 1\n');
      const copy = await prepareRepoWorkspace(root, 'run2', plain);
      const empty = await prepareRepoWorkspace(root, 'run3');
      for (const ws of [copy, empty]) {
        const outcome = await mergeRunBranch(ws, { into: 'main', strategy: 'merge', message: 'x' });
        expect(outcome).toMatchObject({ merged: false, code: 'not_git' });
        expect(!outcome.merged && outcome.reason).toMatch(/not a worktree of a git repository.*offered as a git bundle and a patch/);
      }
      expect(existsSync(path.join(plain, '.git'))).toBe(false);
    });
  });
});

describe('exportRunBranch', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'rt-export-'));
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('a copy’s branch: a bundle that verifies and clones, a patch that applies onto the original directory', async () => {
    const plain = path.join(tmp, 'plain');
    await mkdir(plain);
    await writeFile(path.join(plain, 'calc.py'), CALC);
    await writeFile(path.join(plain, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // not UTF-8
    const ws = await prepareRepoWorkspace(path.join(tmp, 'workspaces'), 'run1', plain);
    await writeFileChanges(ws.path, [
      { path: 'calc.py', content: CALC_WITH_MUL },
      { path: 'test_mul.py', content: TEST_MUL },
    ]);
    await writeFile(path.join(ws.path, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x21, 0x0a]));
    await commitWorkspace(ws, { message: 'I1' });
    const out = path.join(tmp, 'out');

    const { bundle, patch } = await exportRunBranch(ws, out);

    expect(bundle).toBe(path.join(out, 'roundtable-run1.bundle'));
    expect(patch).toBe(path.join(out, 'roundtable-run1.patch'));
    const scratch = path.join(tmp, 'scratch');
    git(tmp, 'init', '-q', scratch);
    expect(() => git(scratch, 'bundle', 'verify', '--quiet', bundle)).not.toThrow();
    git(tmp, 'clone', '-q', '--branch', 'roundtable/run1', bundle, path.join(tmp, 'cloned'));
    expect(await readFile(path.join(tmp, 'cloned', 'test_mul.py'), 'utf8')).toBe(TEST_MUL);

    const target = path.join(tmp, 'target');
    await cp(plain, target, { recursive: true });
    git(target, 'apply', '--check', patch);
    git(target, 'apply', patch);
    expect(await readFile(path.join(target, 'calc.py'), 'utf8')).toBe(CALC_WITH_MUL);
    expect(await readFile(path.join(target, 'test_mul.py'), 'utf8')).toBe(TEST_MUL);
    expect(await readFile(path.join(target, 'latin1.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x21, 0x0a]));
    expect(() => git(plain, 'apply', '--check', '-R', patch)).toThrow(); // the original is untouched: reversing does not apply there
  });

  it('a greenfield branch: the patch applies onto an empty directory', async () => {
    const ws = await prepareRepoWorkspace(path.join(tmp, 'workspaces'), 'run1');
    await writeFileChanges(ws.path, [{ path: 'pkg/dd.py', content: 'def f():\n    return 1\n' }]);
    await commitWorkspace(ws, { message: 'I1' });

    const { bundle, patch } = await exportRunBranch(ws, path.join(tmp, 'out'));

    const scratch = path.join(tmp, 'scratch');
    git(tmp, 'init', '-q', scratch);
    expect(git(scratch, 'bundle', 'list-heads', bundle)).toContain('refs/heads/roundtable/run1');
    const target = path.join(tmp, 'target');
    await mkdir(target);
    git(target, 'apply', '--check', patch);
    git(target, 'apply', patch);
    expect(await readFile(path.join(target, 'pkg/dd.py'), 'utf8')).toBe('def f():\n    return 1\n');
  });
});
