import { CLI_NAMES, DEFAULT_BASE_URLS, DEFAULT_OPERATOR_POLICY, DEFAULT_SANDBOX_IMAGE, OperatorPolicy, type OperatorPolicyInput } from './operator-policy.schema';

const EXPECTED_DEFAULTS = {
  api_keys: {
    ANTHROPIC_API_KEY: { provider_type: 'anthropic', base_urls: ['https://api.anthropic.com'] },
    OPENAI_API_KEY: { provider_type: 'openai_compat', base_urls: ['https://api.openai.com/v1'] },
    XAI_API_KEY: { provider_type: 'openai_compat', base_urls: ['https://api.x.ai/v1'] },
    GEMINI_API_KEY: { provider_type: 'gemini', base_urls: ['https://generativelanguage.googleapis.com'] },
    GOOGLE_API_KEY: { provider_type: 'gemini', base_urls: ['https://generativelanguage.googleapis.com'] },
  },
  ollama: { hosts: ['http://localhost:11434', 'http://127.0.0.1:11434'] },
  cli: { allowed: ['claude', 'codex', 'grok', 'gemini', 'agy'], binaries: {}, run_as: { uid: 65534, gid: 65534 }, allow_same_user: false },
  repos: { roots: [], merge_roots: [] },
  approvals: { four_eyes: false, autonomous_merge: false },
  playground: { max_calls_per_run: 0, max_tokens_per_call: 4096 },
  budgets: { teams: {}, projects: {} },
  cassettes: { roots: [] },
  sandbox: { allow_process: false, images: ['roundtable/sandbox:latest'], max_memory_mb: 4096, max_pids: 1024, max_cpus: 2, max_timeout_s: 1800 },
};

/** The messages of a policy that does not parse, one per issue, nested ones (a record's key) included. */
function messages(input: unknown): string[] {
  const r = OperatorPolicy.safeParse(input);
  if (r.success) return [];
  const out: string[] = [];
  const walk = (issues: readonly { message: string; issues?: unknown }[]) => {
    for (const i of issues) {
      out.push(i.message);
      if (Array.isArray(i.issues)) walk(i.issues as { message: string }[]);
    }
  };
  walk(r.error.issues as { message: string; issues?: unknown }[]);
  return out;
}
const valid = (input: OperatorPolicyInput) => OperatorPolicy.safeParse(input).success;

describe('the operator policy’s defaults: the safe ones', () => {
  it('without a file: the SDK URLs for the known keys, local Ollama, every CLI as nobody, no repos or cassettes, docker only', () => {
    expect(DEFAULT_OPERATOR_POLICY).toEqual(EXPECTED_DEFAULTS);
    expect(DEFAULT_BASE_URLS).toEqual({ anthropic: 'https://api.anthropic.com', openai_compat: 'https://api.openai.com/v1', gemini: 'https://generativelanguage.googleapis.com' });
    expect(DEFAULT_SANDBOX_IMAGE).toBe('roundtable/sandbox:latest');
    expect([...CLI_NAMES]).toEqual(['claude', 'codex', 'grok', 'gemini', 'agy']);
  });

  it('each section written but empty takes the same defaults, field by field', () => {
    expect(OperatorPolicy.parse({ ollama: {}, cli: {}, repos: {}, cassettes: {}, sandbox: {} })).toEqual(EXPECTED_DEFAULTS);
  });

  it('a section given in part keeps the defaults of the rest', () => {
    const p = OperatorPolicy.parse({ cli: { allowed: ['claude'] }, sandbox: { allow_process: true } });
    expect(p.cli).toEqual({ ...EXPECTED_DEFAULTS.cli, allowed: ['claude'] });
    expect(p.sandbox).toEqual({ ...EXPECTED_DEFAULTS.sandbox, allow_process: true });
  });
});

describe('the operator policy’s fields', () => {
  it('a key variable is an environment variable name', () => {
    const rule = { provider_type: 'anthropic' as const, base_urls: ['https://a.test'] };
    for (const name of ['A', '_KEY', 'MY_KEY_2']) expect(valid({ api_keys: { [name]: rule } })).toBe(true);
    for (const name of ['lower_key', '2KEY', 'MY-KEY', 'MY KEY', 'KEY\nX', 'xKEY', 'KEYx']) expect(valid({ api_keys: { [name]: rule } })).toBe(false);
    expect(messages({ api_keys: { 'MY-KEY': rule } })).toContain('an environment variable name (e.g. ANTHROPIC_API_KEY)');
  });

  it('a key rule names a keyed provider type and at least one URL', () => {
    expect(valid({ api_keys: { K: { provider_type: 'ollama' as never, base_urls: ['https://a.test'] } } })).toBe(false);
    expect(valid({ api_keys: { K: { provider_type: 'gemini', base_urls: [] } } })).toBe(false);
    expect(valid({ api_keys: { K: { provider_type: 'gemini', base_urls: ['https://a.test'], extra: 1 } as never } })).toBe(false);
  });

  it.each([
    ['http://localhost:11434', true],
    ['https://api.x.test', true],
    ['https://api.x.test/', true],
    ['https://api.x.test/v1/chat', true],
    ['https://127.0.0.1:*', true],
    ['https://api.x.test:*/v1', true],
    ['ftp://api.x.test', false],
    ['httpss://api.x.test', false],
    ['xhttps://api.x.test', false],
    ['https:/api.x.test', false],
    ['https://', false],
    ['https:///v1', false],
    ['https://user@api.x.test', false],
    ['https://user:pw@api.x.test/v1', false],
    ['https://api x.test', false],
    ['https://api.x.test/v 1', false],
    ['https://api.x.test/v1 ', false],
    ['api.x.test', false],
  ])('a URL pattern: %s is %s', (url, ok) => {
    expect(valid({ ollama: { hosts: [url] } })).toBe(ok);
    expect(valid({ api_keys: { K: { provider_type: 'gemini', base_urls: [url] } } })).toBe(ok);
  });

  it('says what a URL pattern looks like', () => {
    expect(messages({ ollama: { hosts: ['ftp://x'] } })).toEqual(['a URL like https://api.openai.com/v1 (port * for any port), without user or password']);
  });

  it('a CLI home is an absolute path (it is not resolved against the file)', () => {
    expect(valid({ cli: { home: '/home/cli' } })).toBe(true);
    expect(valid({ cli: { home: 'home/cli' } })).toBe(false);
    expect(valid({ cli: { home: 'home/cli/' } })).toBe(false);
    expect(messages({ repos: { roots: ['rel/x'] } })).toEqual(['an absolute path (relative paths are resolved against the policy file before this check)']);
  });

  it('a merge root lies under a repo root, and the refusal says how to fix it', () => {
    expect(OperatorPolicy.parse({ repos: { roots: ['/srv/repos'] } }).repos.merge_roots).toEqual([]);
    expect(valid({ repos: { roots: ['/srv/repos'], merge_roots: ['/srv/repos'] } })).toBe(true);
    expect(valid({ repos: { roots: ['/srv/repos', '/home/ci'], merge_roots: ['/srv/repos/app', '/home/ci/x'] } })).toBe(true);
    expect(messages({ repos: { roots: ['/srv/repos'], merge_roots: ['/srv/repos/app', '/srv/repos-other'] } })).toEqual([
      '/srv/repos-other is not under any of repos.roots [/srv/repos]: a run can only merge into a repository it may read; add its directory to repos.roots, or remove it from repos.merge_roots',
    ]);
    expect(OperatorPolicy.safeParse({ repos: { roots: ['/srv/repos'], merge_roots: ['/srv/repos/a', '/etc'] } }).error?.issues[0].path).toEqual(['repos', 'merge_roots', 1]);
    expect(messages({ repos: { merge_roots: ['/srv/repos'] } })).toEqual([
      '/srv/repos is not under any of repos.roots []: a run can only merge into a repository it may read; add its directory to repos.roots, or remove it from repos.merge_roots',
    ]);
    expect(valid({ repos: { roots: ['/srv/repos'], merge_roots: ['/srv/repos/../../etc'] } })).toBe(false);
    expect(messages({ repos: { roots: ['/srv'], merge_roots: ['srv/x'] } })).toContain('an absolute path (relative paths are resolved against the policy file before this check)');
  });

  it('a CLI binary is not empty, a run_as user is not root, a CLI is one of the known ones', () => {
    expect(valid({ cli: { binaries: { claude: '/usr/bin/claude' } } })).toBe(true);
    expect(valid({ cli: { binaries: { claude: '' } } })).toBe(false);
    expect(valid({ cli: { run_as: { uid: 1000, gid: 1000 } } })).toBe(true);
    expect(valid({ cli: { run_as: { uid: 0, gid: 0 } } })).toBe(false);
    expect(valid({ cli: { run_as: { uid: 1000, gid: 0 } } })).toBe(false);
    expect(valid({ cli: { allowed: ['bash' as never] } })).toBe(false);
  });

  it.each([
    ['runsc', true],
    ['io.containerd.runc.v2', true],
    ['my-rt_1', true],
    ['r', true],
    ['Runsc', false],
    ['1runsc', false],
    ['run sc', false],
    ['runsc!', false],
    ['runSC', false],
    ['', false],
  ])('a sandbox runtime: %j is %s', (runtime, ok) => {
    expect(valid({ sandbox: { runtime } })).toBe(ok);
  });

  it('says what a runtime looks like, and refuses limits too low to run tests', () => {
    expect(messages({ sandbox: { runtime: 'Bad' } })).toEqual(['a runtime name the Docker engine knows, e.g. runsc']);
    expect(valid({ sandbox: { max_memory_mb: 63 } })).toBe(false);
    expect(valid({ sandbox: { max_pids: 15 } })).toBe(false);
    expect(valid({ sandbox: { max_cpus: 0 } })).toBe(false);
    expect(valid({ sandbox: { max_timeout_s: 0 } })).toBe(false);
    expect(valid({ sandbox: { images: [''] } })).toBe(false);
  });

  it('budgets: caps per team and per project, each optional, none by default; anything else is named with the three caps', () => {
    const p = OperatorPolicy.parse({ budgets: { teams: { alpha: { max_calls_per_day: 3, max_usd_total: 12.5 } }, projects: { 'dd-demo': { max_usd_per_day: 1 } } } });
    expect(p.budgets).toEqual({ teams: { alpha: { max_calls_per_day: 3, max_usd_total: 12.5 } }, projects: { 'dd-demo': { max_usd_per_day: 1 } } });
    expect(OperatorPolicy.parse({ budgets: { teams: { alpha: {} } } }).budgets).toEqual({ teams: { alpha: {} }, projects: {} });
    expect(messages({ budgets: { teams: { alpha: { max_calls: 3 } } } })).toEqual([
      "max_calls: not a cap across runs; a team's or a project's caps are max_calls_per_day, max_usd_per_day and max_usd_total (a run's own caps are the project file's budget)",
    ]);
    expect(valid({ budgets: { teams: { alpha: { max_calls_per_day: 1.5 } } } })).toBe(false);
    expect(valid({ budgets: { teams: { alpha: { max_usd_per_day: -1 } } } })).toBe(false);
    expect(valid({ budgets: { groups: {} } } as never)).toBe(false);
    const path = OperatorPolicy.safeParse({ budgets: { projects: { x: { max_usd_total: 'ten' } } } });
    expect(path.success || path.error.issues[0].path).toEqual(['budgets', 'projects', 'x', 'max_usd_total']);
  });
});
