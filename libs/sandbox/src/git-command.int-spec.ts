import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GitCommandError, runGit } from './git-command';

describe('runGit answerExitCodes', () => {
  let repo: string;
  beforeAll(async () => {
    repo = await mkdtemp(path.join(tmpdir(), 'rt-gitcmd-'));
    await runGit(['init', '-q', repo]);
    await runGit(['-C', repo, 'commit', '-q', '--allow-empty', '-m', 'a']);
  });
  afterAll(async () => {
    await rm(repo, { recursive: true, force: true });
  });

  it('returns an exit code asked for as an answer, with its stdout; 0 as before', async () => {
    // config --get of a missing key exits 1
    expect(await runGit(['-C', repo, 'config', '--get', 'no.such'], { answerExitCodes: [1] })).toEqual({ stdout: '', truncated: false, exitCode: 1 });
    expect(await runGit(['-C', repo, 'rev-parse', '--abbrev-ref', 'HEAD'], { answerExitCodes: [1] })).toEqual({ stdout: 'main\n', truncated: false, exitCode: 0 });
  });

  it('still throws for an exit code not asked for', async () => {
    await expect(runGit(['-C', repo, 'config', '--get', 'no.such'])).rejects.toBeInstanceOf(GitCommandError);
    await expect(runGit(['-C', repo, 'rev-parse', '--verify', 'nope'], { answerExitCodes: [1] })).rejects.toMatchObject({ exitCode: 128 });
  });
});
