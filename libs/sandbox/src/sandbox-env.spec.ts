import { isSecretEnvName, requestEnv, sandboxEnv } from './sandbox-env';

const base: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TZ: 'UTC',
  PYENV_ROOT: '/root/.pyenv',
  PYENV_VERSION: '3.11.7',
  HOME: '/root',
  USER: 'root',
  FOO_API_KEY: 'sk-foo',
  OPENAI_API_KEY: 'sk-openai',
  GITHUB_TOKEN: 'ghp_x',
  AWS_SECRET: 's',
  PGPASSWORD: 'pw',
  DATABASE_URL: 'postgres://u:p@h/db',
  NODE_OPTIONS: '--require evil.js',
};

describe('sandboxEnv', () => {
  it('passes exactly the allowlist plus the fixed python settings and the scratch HOME', () => {
    expect(sandboxEnv(base, { home: '/runs/r1/workspace.home' })).toEqual({
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TZ: 'UTC',
      PYENV_ROOT: '/root/.pyenv',
      PYENV_VERSION: '3.11.7',
      HOME: '/runs/r1/workspace.home',
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONUNBUFFERED: '1',
    });
  });

  it('never passes the real HOME through', () => {
    expect(sandboxEnv(base).HOME).toBeUndefined();
  });

  it('omits allowlisted names that the base does not define', () => {
    const env = sandboxEnv({ PATH: '/bin' });
    expect(Object.keys(env).sort()).toEqual(['PATH', 'PYTHONDONTWRITEBYTECODE', 'PYTHONUNBUFFERED']);
  });

  it('drops secret-looking names even when explicitly allowed', () => {
    const env = sandboxEnv(base, { allow: ['FOO_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET', 'PGPASSWORD', 'USER'] });
    expect(env).not.toHaveProperty('FOO_API_KEY');
    expect(env).not.toHaveProperty('GITHUB_TOKEN');
    expect(env).not.toHaveProperty('AWS_SECRET');
    expect(env).not.toHaveProperty('PGPASSWORD');
    expect(env.USER).toBe('root');
  });

  it('does not leak any secret value from the base', () => {
    const values = Object.values(sandboxEnv(base, { home: '/h' }));
    for (const secret of ['sk-foo', 'sk-openai', 'ghp_x', 'pw', 'postgres://u:p@h/db', '--require evil.js']) {
      expect(values).not.toContain(secret);
    }
  });

  it.each([
    ['OPENAI_API_KEY', true],
    ['anthropic_api_key', true],
    ['GH_TOKEN', true],
    ['CLIENT_SECRET', true],
    ['MYSQL_ROOT_PASSWORD', true],
    ['PASSWORD_FILE', true],
    ['PATH', false],
    ['TOKENIZERS_PARALLELISM', false],
  ])('isSecretEnvName(%s) = %s', (name, expected) => {
    expect(isSecretEnvName(name)).toBe(expected);
  });
});

describe('requestEnv', () => {
  it('passes names the sandbox does not set itself', () => {
    expect(requestEnv({ ROUNDTABLE_METRICS: '/workspace/.roundtable/metrics.json', _X1: '' })).toEqual({ ROUNDTABLE_METRICS: '/workspace/.roundtable/metrics.json', _X1: '' });
    expect(requestEnv(undefined)).toEqual({});
  });

  it.each([
    ['lower', 'is not a usable variable name'],
    ['1ABC', 'is not a usable variable name'],
    ['A-B', 'is not a usable variable name'],
    ['OPENAI_API_KEY', 'looks like a secret'],
    ['PATH', 'is set by the sandbox itself'],
    ['HOME', 'is set by the sandbox itself'],
    ['PYTHONUNBUFFERED', 'is set by the sandbox itself'],
  ])('refuses %s (%s)', (name, why) => {
    expect(() => requestEnv({ [name]: 'x' })).toThrow(why);
  });

  it('refuses a value with a NUL byte', () => {
    expect(() => requestEnv({ ROUNDTABLE_METRICS: 'a\0b' })).toThrow('not a string without NUL bytes');
  });
});
