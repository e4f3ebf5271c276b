import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { gitEnv } from '@roundtable/sandbox';

/** The experiment example (issue 24): a backtest, its price series, its experiment files and cassettes. */
export const BACKTEST_EXAMPLE = path.resolve(__dirname, '../../../examples/experiment-backtest');

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=fixture', '-c', 'user.email=fixture@localhost', ...args], { cwd, env: gitEnv(), encoding: 'utf8' });

/** The commit a repository's HEAD is at: what an experiment preregistered against it is pinned to. */
export const headOf = (repo: string): string => git(repo, 'rev-parse', 'HEAD').trim();

/** A git copy of the example at `repo` (one commit on main), the repository an experiment is pinned to; answers its HEAD. */
export function backtestRepo(repo: string): string {
  cpSync(BACKTEST_EXAMPLE, repo, { recursive: true });
  git(repo, 'init', '-q', '--initial-branch=main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'backtest example');
  return headOf(repo);
}
