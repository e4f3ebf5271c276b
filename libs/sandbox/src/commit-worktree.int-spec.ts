import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PinnedCommitMissingError, prepareCommitWorktree } from './commit-worktree';
import { gitEnv } from './git-command';
import { RepoUnusableError } from './repo-unusable.error';

/** Real git, a real repository that moved on after the experiment's commit. */

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '--no-optional-locks', ...args], { cwd, env: gitEnv(), encoding: 'utf8' });

describe('prepareCommitWorktree', () => {
  let tmp: string;
  let root: string;
  let repo: string;
  let first: string;
  let second: string;

  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'rt-commit-wt-'));
    root = path.join(tmp, 'workspaces');
    repo = path.join(tmp, 'repo');
    await mkdir(repo);
    git(repo, 'init', '-q', '--initial-branch=main');
    await writeFile(path.join(repo, 'strategy.py'), 'WINDOW = 10\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
    first = git(repo, 'rev-parse', 'HEAD').trim();
    await writeFile(path.join(repo, 'strategy.py'), 'WINDOW = 50\n');
    git(repo, 'commit', '-q', '-am', 'second');
    second = git(repo, 'rev-parse', 'HEAD').trim();
  });

  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('checks out the pinned commit, not HEAD, detached, and leaves the repository as it was', async () => {
    const wt = await prepareCommitWorktree(root, 'run1', repo, first.slice(0, 7));
    expect(wt).toBe(path.join(root, 'run1', 'experiment'));
    expect(await readFile(path.join(wt, 'strategy.py'), 'utf8')).toBe('WINDOW = 10\n');
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(second);
    expect(git(repo, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(first);
    expect(() => git(wt, 'symbolic-ref', '-q', 'HEAD')).toThrow();
  });

  it('is idempotent at the same commit, and moves to another commit when asked for one', async () => {
    const wt = await prepareCommitWorktree(root, 'run2', repo, first);
    await writeFile(path.join(wt, 'marker'), 'kept');
    expect(await prepareCommitWorktree(root, 'run2', repo, first)).toBe(wt);
    expect(await readFile(path.join(wt, 'marker'), 'utf8')).toBe('kept');

    expect(await prepareCommitWorktree(root, 'run2', repo, second)).toBe(wt);
    expect(await readFile(path.join(wt, 'strategy.py'), 'utf8')).toBe('WINDOW = 50\n');
    await expect(readFile(path.join(wt, 'marker'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('refuses a commit that is gone from the repository, naming it', async () => {
    const gone = 'deadbeef'.repeat(5);
    const err = await prepareCommitWorktree(root, 'run3', repo, gone).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PinnedCommitMissingError);
    expect(err).toBeInstanceOf(RepoUnusableError);
    expect((err as Error).message).toBe(`the pinned commit ${gone} is not in ${repo} any more (rewritten history?); a changed copy of the experiment is a new experiment`);
  });

  it('refuses a directory that is not a git repository', async () => {
    const plain = path.join(tmp, 'plain');
    await mkdir(plain);
    await expect(prepareCommitWorktree(root, 'run4', plain, first)).rejects.toThrow(`repo ${plain}: is not a git repository`);
  });
});
