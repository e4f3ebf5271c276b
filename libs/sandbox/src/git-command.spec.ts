import { gitEnv, workspaceGitArgs } from './git-command';
import { parseNumstat } from './workspace-commit';

describe('gitEnv', () => {
  it('is built from nothing: no inherited GIT_* variable, secret or user config reaches git', () => {
    const env = gitEnv({
      PATH: '/usr/bin',
      HOME: '/home/me',
      GIT_DIR: '/elsewhere/.git',
      GIT_WORK_TREE: '/elsewhere',
      GIT_INDEX_FILE: '/tmp/index',
      OPENAI_API_KEY: 'sk-x',
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/nonexistent',
      LANG: 'C',
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
    });
  });
});

describe('workspaceGitArgs', () => {
  it('names the git directory and work tree explicitly, with the cache exclusions', () => {
    expect(workspaceGitArgs('/r/.git/worktrees/w', '/ws', '/run/exclude')).toEqual([
      '--git-dir=/r/.git/worktrees/w',
      '--work-tree=/ws',
      '-c',
      'core.excludesFile=/run/exclude',
    ]);
  });
});

describe('parseNumstat', () => {
  it('reads added/deleted per file, null for a binary one, tabs and spaces in names kept', () => {
    expect(parseNumstat('4\t0\tcalc.py\0-\t-\tlogo.png\x001\t1\tdir/a b\tc.py\0')).toEqual([
      { path: 'calc.py', added: 4, deleted: 0 },
      { path: 'logo.png', added: null, deleted: null },
      { path: 'dir/a b\tc.py', added: 1, deleted: 1 },
    ]);
  });

  it('no changes is an empty list', () => {
    expect(parseNumstat('')).toEqual([]);
  });
});
