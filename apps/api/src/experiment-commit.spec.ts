import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from './api-error';
import { resolvePinnedCommit } from './experiment-commit';

let dir: string;
let repo: string;
let head: string;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'rt-exp-commit-')));
  repo = join(dir, 'repo');
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'run.sh'), 'echo "{}"\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'method');
  head = git('rev-parse', 'HEAD');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function refusal(p: Promise<unknown>): Promise<{ status: number; body: { message: string; issues: { path: string }[] } }> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(ApiError);
  return { status: (e as ApiError).getStatus(), body: (e as ApiError).getResponse() as never };
}

describe('resolvePinnedCommit', () => {
  it('pins HEAD when no commit is named, and expands a short id to the full one', async () => {
    expect(await resolvePinnedCommit(repo)).toEqual({ repo, commit: head });
    expect(await resolvePinnedCommit(repo, head.slice(0, 8))).toEqual({ repo, commit: head });
  });

  it('refuses a directory that is not a git repository, naming repo', async () => {
    const r = await refusal(resolvePinnedCommit(dir));
    expect(r.status).toBe(400);
    expect(r.body.issues[0].path).toBe('repo');
    expect(r.body.message).toContain(`${dir} is not a git repository; git init and commit it first`);
  });

  it('refuses a commit the repository does not hold, naming commit', async () => {
    const r = await refusal(resolvePinnedCommit(repo, 'deadbeefdeadbeef'));
    expect(r.status).toBe(400);
    expect(r.body.issues[0].path).toBe('commit');
    expect(r.body.message).toMatch(/has no commit deadbeefdeadbeef/);
  });
});
