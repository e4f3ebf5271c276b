import { execFile } from 'node:child_process';
import { ApiError } from './api-error';
import { realPathOf } from './real-path';

/** A rev-parse answers in milliseconds; a repository on a hung network mount must not hold a request. */
export const GIT_TIMEOUT_MS = 5000;

export interface PinnedCommit {
  /** The repository's real path (symlinks resolved): what the policy judged and what the row keeps. */
  repo: string;
  /** The full 40-hex commit id. */
  commit: string;
}

interface GitOutcome {
  code: number | string | null;
  stdout: string;
  stderr: string;
}

/**
 * git without a shell, with a timeout, and with an environment of its own: the api's holds
 * DATABASE_URL, and a GIT_DIR there would point git at another repository.
 */
function git(args: string[]): Promise<GitOutcome> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  return new Promise((resolve) => {
    execFile('git', args, { timeout: GIT_TIMEOUT_MS, env, maxBuffer: 64 * 1024 }, (err, stdout, stderr) => {
      const code = !err ? 0 : err.killed ? 'TIMEOUT' : ((err as { code?: number | string | null }).code ?? 1);
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const refuse = (path: 'repo' | 'commit', message: string) => ApiError.badRequest('invalid_project_config', `${path}: ${message}`, { issues: [{ path, message }] });

/**
 * The commit an experiment is pinned to, resolved on this machine: the one the file names, or the
 * repository's HEAD. Experiments are pinned so the method runs on exactly the code the plan was
 * written against; a repository that is not under git, or a commit it does not hold, is a 400
 * naming the field. Call it only for a repo the operator's policy has already admitted.
 */
export async function resolvePinnedCommit(repo: string, commit?: string): Promise<PinnedCommit> {
  const real = (await realPathOf(repo)) ?? repo;
  const rev = commit ?? 'HEAD';
  const out = await git(['-C', real, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  if (out.code === 0) return { repo: real, commit: out.stdout.trim() };
  if (out.code === 'ENOENT') throw new ApiError(503, { error: 'git_unavailable', message: 'git is not installed on the api host: experiments pin a commit with it' });
  if (out.code === 'TIMEOUT') throw refuse('repo', `git did not answer within ${GIT_TIMEOUT_MS} ms in ${repo}; is it on a slow or hung mount?`);
  // rev-parse --quiet says nothing about a missing revision (exit 1); anything git complains of is about the repository.
  const complaint = out.stderr.trim().split('\n')[0] ?? '';
  if (/not a git repository/i.test(complaint)) throw refuse('repo', `experiments pin a commit: ${repo} is not a git repository; git init and commit it first`);
  if (out.code !== 1 || complaint) throw refuse('repo', `git could not read ${repo}: ${complaint || `exit ${out.code}`}`);
  if (!commit) throw refuse('commit', `${repo} has no commit at HEAD to pin; commit the method first, or name a commit`);
  throw refuse('commit', `${repo} has no commit ${commit}; give a commit id this repository holds (git log), or leave commit out to pin HEAD`);
}
