import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_OPERATOR_POLICY, OperatorPolicy, type OperatorPolicyInput } from './operator-policy.schema';
import { autonomyPolicyIssues, mergePolicyIssues, pathUnderRoots, projectPolicyIssues, providerPolicyIssues, repoPolicyIssues, sandboxPolicyIssues, urlAllowed } from './policy-checks';
import { OperatorPolicyError, parseOperatorPolicy, readOperatorPolicy } from './read-operator-policy';

const policy = (p: OperatorPolicyInput = {}) => OperatorPolicy.parse(p);

describe('urlAllowed', () => {
  it.each([
    ['https://api.openai.com/v1', ['https://api.openai.com/v1'], true],
    ['https://api.openai.com/v1/', ['https://api.openai.com/v1'], true],
    ['https://API.OpenAI.com/v1/chat', ['https://api.openai.com/v1'], true],
    ['https://api.openai.com:443/v1', ['https://api.openai.com/v1'], true],
    ['http://127.0.0.1:41234/v1', ['http://127.0.0.1:*'], true],
    // a path prefix is segment by segment
    ['https://api.openai.com/v10', ['https://api.openai.com/v1'], false],
    ['https://api.openai.com/', ['https://api.openai.com/v1'], false],
    // another scheme, host or port
    ['http://api.openai.com/v1', ['https://api.openai.com/v1'], false],
    ['https://api.openai.com.evil.test/v1', ['https://api.openai.com/v1'], false],
    ['https://api.openai.com:8443/v1', ['https://api.openai.com/v1'], false],
    ['http://127.0.0.2:41234/v1', ['http://127.0.0.1:*'], false],
    // credentials in the URL, and what is not a URL
    ['https://user:pw@api.openai.com/v1', ['https://api.openai.com/v1'], false],
    ['https://api.openai.com@evil.test/v1', ['https://api.openai.com/v1'], false],
    ['not a url', ['https://api.openai.com/v1'], false],
    ['https://api.openai.com/v1', [], false],
  ])('%s against %j is %s', (url, patterns, allowed) => {
    expect(urlAllowed(url, patterns)).toBe(allowed);
  });
});

describe('pathUnderRoots', () => {
  it.each([
    ['/srv/repos/app', ['/srv/repos'], true],
    ['/srv/repos', ['/srv/repos'], true],
    ['/srv/repos-other/app', ['/srv/repos'], false],
    ['/srv/repos/../etc', ['/srv/repos'], false],
    ['/etc', ['/srv/repos', '/tmp'], false],
    ['/etc', [], false],
  ])('%s under %j is %s', (p, roots, under) => {
    expect(pathUnderRoots(p, roots)).toBe(under);
  });
});

describe('providerPolicyIssues', () => {
  it('refuses a variable that is not a key, whatever URL it is sent to', () => {
    const [issue] = providerPolicyIssues('x', { type: 'openai_compat', api_key_env: 'DATABASE_URL', base_url: 'http://evil.test/v1' }, DEFAULT_OPERATOR_POLICY);
    expect(issue.path).toBe('providers.x.api_key_env');
    expect(issue.message).toMatch(/DATABASE_URL is not a provider key in the operator policy \(ROUNDTABLE_POLICY\).*api_keys/);
  });

  it('sends a key only to its own provider type and its allowed URLs', () => {
    expect(providerPolicyIssues('a', { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
    const [wrongType] = providerPolicyIssues('a', { type: 'openai_compat', api_key_env: 'ANTHROPIC_API_KEY' }, DEFAULT_OPERATOR_POLICY);
    expect(wrongType.message).toMatch(/a key of provider type anthropic, not openai_compat/);
    const [wrongUrl] = providerPolicyIssues('o', { type: 'openai_compat', api_key_env: 'OPENAI_API_KEY', base_url: 'http://evil.test/v1' }, DEFAULT_OPERATOR_POLICY);
    expect(wrongUrl).toEqual({
      path: 'providers.o.base_url',
      message: expect.stringMatching(/OPENAI_API_KEY may only be sent to \[https:\/\/api.openai.com\/v1\], not http:\/\/evil.test\/v1.*api_keys.OPENAI_API_KEY.base_urls/),
    });
    expect(providerPolicyIssues('x', { type: 'openai_compat', api_key_env: 'XAI_API_KEY', base_url: 'https://api.x.ai/v1' }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
    // Without base_url the SDK's default is where the key goes: XAI's key is not for api.openai.com.
    expect(providerPolicyIssues('x', { type: 'openai_compat', api_key_env: 'XAI_API_KEY' }, DEFAULT_OPERATOR_POLICY)).toHaveLength(1);
  });

  it('checks Ollama hosts, offered CLIs and cassette roots', () => {
    expect(providerPolicyIssues('l', { type: 'ollama', host: 'http://localhost:11434' }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
    expect(providerPolicyIssues('l', { type: 'ollama', host: 'http://169.254.169.254' }, DEFAULT_OPERATOR_POLICY)[0].path).toBe('providers.l.host');
    expect(providerPolicyIssues('c', { type: 'cli', cli: 'codex' }, policy({ cli: { allowed: ['claude'] } }))[0].message).toMatch(/codex CLI is not offered.*cli.allowed/);
    expect(providerPolicyIssues('c', { type: 'cli', cli: 'claude' }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
    const replay = { type: 'replay' as const, cassette: '/srv/cassettes/demo.yaml', latency_ms: 0 };
    expect(providerPolicyIssues('r', replay, DEFAULT_OPERATOR_POLICY)[0].message).toMatch(/cassettes may only be read from \[\] \(none\).*cassettes.roots/);
    expect(providerPolicyIssues('r', replay, policy({ cassettes: { roots: ['/srv/cassettes'] } }))).toEqual([]);
  });
});

describe('sandboxPolicyIssues', () => {
  it('refuses the process runner unless the operator allows it', () => {
    expect(sandboxPolicyIssues({ sandbox: { runner: 'process' } }, DEFAULT_OPERATOR_POLICY)[0]).toEqual({
      path: 'sandbox.runner',
      message: expect.stringMatching(/sandbox.allow_process: false/),
    });
    expect(sandboxPolicyIssues({ sandbox: { runner: 'process' } }, policy({ sandbox: { allow_process: true } }))).toEqual([]);
  });

  it('holds limits, images and the timeout to the policy, and cpus to the engine', () => {
    const issues = sandboxPolicyIssues(
      { sandbox: { runner: 'docker', pids: 1_000_000, memory_mb: 1_048_576, cpus: 64, image: 'alpine:latest' }, test_timeout_s: 86_400 },
      DEFAULT_OPERATOR_POLICY,
    );
    expect(issues.map((i) => i.path).sort()).toEqual(['sandbox.cpus', 'sandbox.image', 'sandbox.memory_mb', 'sandbox.pids', 'test_timeout_s']);
    expect(issues.find((i) => i.path === 'sandbox.pids')?.message).toMatch(/1000000 is over the limit of 1024.*sandbox.max_pids/);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', cpus: 2 } }, DEFAULT_OPERATOR_POLICY, { engineCpus: 1 })[0].message).toMatch(/Docker engine's 1 CPUs/);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', image: 'mine:1' } }, DEFAULT_OPERATOR_POLICY, { defaultImage: 'mine:1' })).toEqual([]);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker' } }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
  });
});

describe('projectPolicyIssues', () => {
  it('lists every problem of a project at once, repo included', () => {
    const issues = projectPolicyIssues(
      {
        providers: { a: { type: 'anthropic', api_key_env: 'REDIS_URL' }, r: { type: 'replay', cassette: '/etc/shadow', latency_ms: 0 } },
        sandbox: { runner: 'process' },
        repo: '/etc',
      },
      DEFAULT_OPERATOR_POLICY,
    );
    expect(issues.map((i) => i.path)).toEqual(['providers.a.api_key_env', 'providers.r.cassette', 'sandbox.runner', 'repo']);
    expect(repoPolicyIssues('/srv/repos/x', policy({ repos: { roots: ['/srv/repos'] } }))).toEqual([]);
  });
});

describe('reading the policy', () => {
  it('uses the safe defaults without ROUNDTABLE_POLICY', () => {
    expect(readOperatorPolicy({})).toEqual({ policy: DEFAULT_OPERATOR_POLICY, source: null });
    expect(DEFAULT_OPERATOR_POLICY.sandbox.allow_process).toBe(false);
    expect(DEFAULT_OPERATOR_POLICY.repos.roots).toEqual([]);
    expect(DEFAULT_OPERATOR_POLICY.cassettes.roots).toEqual([]);
  });

  it('resolves relative roots against the policy file and names a bad line', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'policy-'));
    const file = path.join(dir, 'policy.yaml');
    writeFileSync(file, 'repos: { roots: [repos, /abs] }\ncassettes: { roots: [.] }\n');
    const { policy: read, source } = readOperatorPolicy({ ROUNDTABLE_POLICY: file });
    expect(source).toBe(file);
    expect(read.repos.roots).toEqual([path.join(dir, 'repos'), '/abs']);
    expect(read.cassettes.roots).toEqual([dir]);
    expect(() => parseOperatorPolicy('sandbox: { max_pids: lots }', dir)).toThrow(/sandbox.max_pids/);
    expect(() => parseOperatorPolicy('sandbox: { allow_proces: true }', dir)).toThrow(OperatorPolicyError);
    expect(() => readOperatorPolicy({ ROUNDTABLE_POLICY: path.join(dir, 'missing.yaml') })).toThrow(/cannot be read \(ENOENT\)/);
  });
});

describe('urlAllowed: where a key may go', () => {
  it.each([
    // any port (`:*`) still holds the scheme and the host
    ['http://api.x.test:8443/v1', ['https://api.x.test:*'], false],
    ['https://api.x.test:8443/v1', ['https://api.x.test:*'], true],
    ['https://api.x.test/v1', ['https://api.x.test:*'], true],
    ['https://other.test:8443/v1', ['https://api.x.test:*'], false],
    // `:*` is any port only right after the host: in the path it is a path
    ['http://h.test:8080/v1/x://y', ['http://h.test/v1/x://y:*'], false],
    ['http://h.test/v1/x://y:*', ['http://h.test/v1/x://y:*'], true],
    // the path of an any-port pattern is still held
    ['https://api.x.test:8443/v2', ['https://api.x.test:*/v1'], false],
    ['https://api.x.test:8443/v1/chat', ['https://api.x.test:*/v1'], true],
    // a default port written out is the default port
    ['https://api.x.test:443/v1', ['https://api.x.test/v1'], true],
    ['https://api.x.test/v1', ['https://api.x.test:443/v1'], true],
    ['http://api.x.test:80/v1', ['http://api.x.test/v1'], true],
    ['http://api.x.test:443/v1', ['http://api.x.test/v1'], false],
    ['https://api.x.test:80/v1', ['https://api.x.test/v1'], false],
    // two ports written out are compared as written
    ['https://api.x.test:8443/v1', ['https://api.x.test:9443/v1'], false],
    ['http://api.x.test:8080/v1', ['http://api.x.test:8081/v1'], false],
    ['https://api.x.test:8443/v1', ['https://api.x.test:8443/v1'], true],
    // a scheme without a default port has none: a port written on one side only differs
    ['foo://h.test:80/x', ['foo://h.test/x'], false],
    ['foo://h.test:443/x', ['foo://h.test/x'], false],
    ['foo://h.test:80/x', ['foo://h.test:80/x'], true],
    // a user or a password alone is enough to refuse, in the URL or in the pattern
    ['https://user@api.x.test/v1', ['https://api.x.test/v1'], false],
    ['https://:pw@api.x.test/v1', ['https://api.x.test/v1'], false],
    ['https://api.x.test/v1', ['https://user@api.x.test/v1'], false],
    // host names compare without case, whatever the scheme
    ['foo://HOST.Example/v1', ['foo://host.example/v1'], true],
    ['foo://host.example/v1', ['foo://HOST.EXAMPLE/v1'], true],
    // one matching pattern of several is enough; a pattern that is no URL matches nothing
    ['https://api.x.test/v1', ['not a url', 'https://api.x.test/v1'], true],
    ['https://api.x.test/v1', ['not a url'], false],
  ])('%s against %j is %s', (url, patterns, allowed) => {
    expect(urlAllowed(url, patterns)).toBe(allowed);
  });
});

describe('pathUnderRoots: what is no real path', () => {
  it.each([
    ['/srv/repos/./app', ['/srv/repos'], false],
    ['/srv/repos/app/..', ['/srv/repos'], false],
    ['/srv/repos/app', ['/tmp', '/srv/repos'], true],
    ['/srv/repos/app', ['/'], true],
  ])('%s under %j is %s', (p, roots, under) => {
    expect(pathUnderRoots(p, roots)).toBe(under);
  });
});

describe('providerPolicyIssues: the messages name the fix', () => {
  it('lists the keys there are, or says there are none', () => {
    const [issue] = providerPolicyIssues('x', { type: 'anthropic', api_key_env: 'MY_KEY' }, policy({ api_keys: { A_KEY: { provider_type: 'anthropic', base_urls: ['https://a.test'] }, B_KEY: { provider_type: 'gemini', base_urls: ['https://b.test'] } } }));
    expect(issue).toEqual({
      path: 'providers.x.api_key_env',
      message: 'MY_KEY is not a provider key in the operator policy (ROUNDTABLE_POLICY); keys: [A_KEY, B_KEY] (the operator adds it under api_keys, for provider "x" to be called)',
    });
    const [none] = providerPolicyIssues('x', { type: 'anthropic', api_key_env: 'MY_KEY' }, policy({ api_keys: {} }));
    expect(none.message).toContain('keys: [] (none) (the operator adds it');
  });

  it('names the key, both types and the policy line for a key of another type', () => {
    expect(providerPolicyIssues('g', { type: 'gemini', api_key_env: 'ANTHROPIC_API_KEY' }, DEFAULT_OPERATOR_POLICY)).toEqual([
      {
        path: 'providers.g.api_key_env',
        message: 'ANTHROPIC_API_KEY is a key of provider type anthropic, not gemini, in the operator policy (ROUNDTABLE_POLICY) (api_keys.ANTHROPIC_API_KEY.provider_type)',
      },
    ]);
  });

  it('blames api_key_env when the refused URL is the SDK default, and names it', () => {
    expect(providerPolicyIssues('x', { type: 'openai_compat', api_key_env: 'XAI_API_KEY' }, DEFAULT_OPERATOR_POLICY)).toEqual([
      {
        path: 'providers.x.api_key_env',
        message: 'XAI_API_KEY may only be sent to [https://api.x.ai/v1], not https://api.openai.com/v1, by the operator policy (ROUNDTABLE_POLICY) (api_keys.XAI_API_KEY.base_urls)',
      },
    ]);
    // Each keyed type's default is where its own default key may go.
    expect(providerPolicyIssues('g', { type: 'gemini', api_key_env: 'GEMINI_API_KEY' }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
    expect(providerPolicyIssues('o', { type: 'openai_compat', api_key_env: 'OPENAI_API_KEY' }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
  });

  it('names the Ollama hosts, the CLIs and the cassette roots allowed', () => {
    expect(providerPolicyIssues('l', { type: 'ollama', host: 'http://169.254.169.254' }, DEFAULT_OPERATOR_POLICY)).toEqual([
      {
        path: 'providers.l.host',
        message: 'http://169.254.169.254 is not an Ollama host allowed by the operator policy (ROUNDTABLE_POLICY); allowed: [http://localhost:11434, http://127.0.0.1:11434] (ollama.hosts)',
      },
    ]);
    expect(providerPolicyIssues('c', { type: 'cli', cli: 'codex' }, policy({ cli: { allowed: ['claude', 'grok'] } }))).toEqual([
      { path: 'providers.c.cli', message: 'the codex CLI is not offered by the operator policy (ROUNDTABLE_POLICY); offered: [claude, grok] (cli.allowed)' },
    ]);
    expect(providerPolicyIssues('r', { type: 'replay', cassette: '/etc/x.yaml', latency_ms: 0 }, policy({ cassettes: { roots: ['/srv/c'] } }))).toEqual([
      {
        path: 'providers.r.cassette',
        message: 'cassettes may only be read from [/srv/c] by the operator policy (ROUNDTABLE_POLICY) (cassettes.roots); this path is outside them',
      },
    ]);
  });
});

describe('sandboxPolicyIssues: each limit at and over the policy’s', () => {
  const p = policy({ sandbox: { max_memory_mb: 2048, max_pids: 256, max_cpus: 4, max_timeout_s: 600, images: ['ok:1'] } });

  it('a value at the limit passes, one over it is refused with the policy line', () => {
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', memory_mb: 2048, pids: 256, cpus: 4, image: 'ok:1' }, test_timeout_s: 600 }, p)).toEqual([]);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', memory_mb: 2049, pids: 257, cpus: 4.5 }, test_timeout_s: 601 }, p)).toEqual([
      { path: 'sandbox.memory_mb', message: '2049 is over the limit of 2048 set by the operator policy (ROUNDTABLE_POLICY) (sandbox.max_memory_mb)' },
      { path: 'sandbox.pids', message: '257 is over the limit of 256 set by the operator policy (ROUNDTABLE_POLICY) (sandbox.max_pids)' },
      { path: 'sandbox.cpus', message: '4.5 is over the limit of 4 set by the operator policy (ROUNDTABLE_POLICY) (sandbox.max_cpus)' },
      { path: 'test_timeout_s', message: '601 is over the limit of 600 s set by the operator policy (ROUNDTABLE_POLICY) (sandbox.max_timeout_s)' },
    ]);
  });

  it('holds test_timeout_s whatever the runner, and without a sandbox section', () => {
    expect(sandboxPolicyIssues({ test_timeout_s: 601 }, p).map((i) => i.path)).toEqual(['test_timeout_s']);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'process' }, test_timeout_s: 601 }, policy({ sandbox: { allow_process: true, max_timeout_s: 600 } })).map((i) => i.path)).toEqual(['test_timeout_s']);
    expect(sandboxPolicyIssues({ test_timeout_s: 600 }, p)).toEqual([]);
  });

  it('names an image that is not allowed, and the images that are', () => {
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', image: 'evil:1' } }, p, { defaultImage: 'mine:1' })).toEqual([
      {
        path: 'sandbox.image',
        message: "evil:1 is not an image allowed by the operator policy (ROUNDTABLE_POLICY); allowed: [ok:1] besides the test-runner's default (sandbox.images), or leave image unset",
      },
    ]);
  });

  it('caps cpus at the Docker engine’s count, at most once per request', () => {
    const engine = { engineCpus: 2 };
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', cpus: 2 } }, p, engine)).toEqual([]);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', cpus: 3 } }, p, engine)).toEqual([
      { path: 'sandbox.cpus', message: "3 is more than the Docker engine's 2 CPUs; ask for at most 2" },
    ]);
    // At the policy's own maximum the engine still caps it; over that maximum, the policy's issue is the one.
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', cpus: 4 } }, p, engine).map((i) => i.message)).toEqual(["4 is more than the Docker engine's 2 CPUs; ask for at most 2"]);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', cpus: 5 } }, p, engine).map((i) => i.message)).toEqual([
      '5 is over the limit of 4 set by the operator policy (ROUNDTABLE_POLICY) (sandbox.max_cpus)',
    ]);
    // Without cpus the engine has nothing to cap, and without an engine count nothing caps it.
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker' } }, p, engine)).toEqual([]);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', cpus: 3 } }, p)).toEqual([]);
  });

  it('a process runner has no docker limits to check', () => {
    const allowed = policy({ sandbox: { allow_process: true, max_memory_mb: 64, max_cpus: 1, images: ['ok:1'] } });
    expect(sandboxPolicyIssues({ sandbox: { runner: 'process' } }, allowed, { engineCpus: 1 })).toEqual([]);
    // The limits are the docker runner's: on a process runner (the schema refuses them there) they are not the policy's to hold.
    expect(sandboxPolicyIssues({ sandbox: { runner: 'process', cpus: 8, memory_mb: 1_000_000, image: 'evil:1' } }, allowed, { engineCpus: 1 })).toEqual([]);
  });

  it('a docker sandbox that names no image uses the default, whatever the test-runner’s is', () => {
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker' } }, p, { defaultImage: 'mine:1' })).toEqual([]);
    expect(sandboxPolicyIssues({ sandbox: { runner: 'docker', image: 'mine:1' } }, p)).toHaveLength(1);
  });
});

describe('projectPolicyIssues and repoPolicyIssues', () => {
  it('names the repo roots, and checks no repo when the project names none', () => {
    expect(repoPolicyIssues('/etc', policy({ repos: { roots: ['/srv/repos'] } }))).toEqual([
      { path: 'repo', message: 'repositories may only be read from [/srv/repos] by the operator policy (ROUNDTABLE_POLICY) (repos.roots); this path is outside them' },
    ]);
    expect(projectPolicyIssues({ providers: {}, repo: null }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
    expect(projectPolicyIssues({ providers: {} }, DEFAULT_OPERATOR_POLICY)).toEqual([]);
    expect(projectPolicyIssues({ providers: {}, test_timeout_s: 86_400 }, DEFAULT_OPERATOR_POLICY).map((i) => i.path)).toEqual(['test_timeout_s']);
  });
});

describe('autonomyPolicyIssues', () => {
  it('refuses autonomy 3 by default, naming the field, the policy setting and the other way', () => {
    expect(DEFAULT_OPERATOR_POLICY.approvals.autonomous_merge).toBe(false);
    expect(autonomyPolicyIssues(3, DEFAULT_OPERATOR_POLICY)).toEqual([
      {
        path: 'autonomy',
        message:
          'autonomy 3 merges a run branch with no person approving, which the operator policy (ROUNDTABLE_POLICY) does not allow (approvals.autonomous_merge is false): use autonomy: 2 with approvals: [merge], or the operator sets approvals.autonomous_merge: true',
      },
    ]);
  });

  it('allows it where the operator does, and never refuses autonomy 0 to 2', () => {
    expect(autonomyPolicyIssues(3, policy({ approvals: { autonomous_merge: true } }))).toEqual([]);
    for (const level of [0, 1, 2]) expect(autonomyPolicyIssues(level, DEFAULT_OPERATOR_POLICY)).toEqual([]);
  });
});

describe('mergePolicyIssues', () => {
  const merging = policy({ repos: { roots: ['/srv/repos'], merge_roots: ['/srv/repos/team'] } });

  it('allows a merge into a repository under repos.merge_roots', () => {
    expect(mergePolicyIssues('/srv/repos/team/app', merging)).toEqual([]);
    expect(mergePolicyIssues('/srv/repos/team', merging)).toEqual([]);
  });

  it('refuses one outside them, even under repos.roots, naming repos.merge_roots and the fix', () => {
    expect(mergePolicyIssues('/srv/repos/other', merging)).toEqual([
      {
        path: 'merge.into',
        message:
          'run branches may only be merged into repositories under [/srv/repos/team] by the operator policy (ROUNDTABLE_POLICY) (repos.merge_roots); /srv/repos/other is outside them: the operator adds its directory to repos.merge_roots, or drop merge from the project and merge the run branch by hand',
      },
    ]);
    expect(mergePolicyIssues('/srv/repos/team-b/app', merging)).toHaveLength(1);
    expect(mergePolicyIssues('/srv/repos/team/../other', merging)).toHaveLength(1);
  });

  it('refuses every merge by default', () => {
    expect(DEFAULT_OPERATOR_POLICY.repos.merge_roots).toEqual([]);
    expect(mergePolicyIssues('/srv/repos/app', policy({ repos: { roots: ['/srv/repos'] } }))[0].message).toMatch(/^run branches may only be merged into repositories under \[\] \(none\) by/);
  });
});

describe('reading the policy: what is refused and what is resolved', () => {
  const dir = '/base/dir';

  it('refuses a policy that is not a mapping', () => {
    for (const text of ['- a\n- b', 'just text', '42']) {
      expect(() => parseOperatorPolicy(text, dir, 'P')).toThrow(new OperatorPolicyError('P: a policy is a YAML mapping (api_keys, cli, repos, cassettes, sandbox …)'));
    }
  });

  it('an empty file, or one that says null, is the defaults', () => {
    expect(parseOperatorPolicy('', dir)).toEqual(DEFAULT_OPERATOR_POLICY);
    expect(parseOperatorPolicy('null', dir)).toEqual(DEFAULT_OPERATOR_POLICY);
    expect(parseOperatorPolicy('# nothing set\n', dir)).toEqual(DEFAULT_OPERATOR_POLICY);
  });

  it('names malformed YAML by the first line of the parser’s message, and the source', () => {
    let err: unknown;
    try {
      parseOperatorPolicy('a: [', dir, 'ROUNDTABLE_POLICY=/p.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OperatorPolicyError);
    expect((err as OperatorPolicyError).code).toBe('INVALID_OPERATOR_POLICY');
    // The parser's first line says where (its next lines quote the text): only that line is kept.
    expect((err as Error).message).toMatch(/^ROUNDTABLE_POLICY=\/p\.yaml: malformed YAML: \S[^\n]* at line 1, column 5:?$/);
  });

  it('lists each invalid line under the source, a root-level one as (root)', () => {
    expect(() => parseOperatorPolicy('bogus: 1\nsandbox: { max_pids: lots }', dir)).toThrow(
      /^ROUNDTABLE_POLICY: invalid operator policy\n {2}- sandbox\.max_pids: [^\n]+\n {2}- \(root\): Unrecognized key: "bogus"$/,
    );
  });

  it('resolves relative roots against baseDir, keeps absolute ones, and refuses roots that are not paths', () => {
    const read = parseOperatorPolicy('repos: { roots: [a, ./b/c, d/, /abs, /abs/e/] }\ncassettes: { roots: [../up] }', dir);
    expect(read.repos.roots).toEqual(['/base/dir/a', '/base/dir/b/c', '/base/dir/d', '/abs', '/abs/e/']);
    expect(read.cassettes.roots).toEqual(['/base/up']);
    expect(() => parseOperatorPolicy('repos: { roots: [42] }', dir)).toThrow(new OperatorPolicyError('ROUNDTABLE_POLICY: invalid operator policy\n  - repos.roots.0: Invalid input: expected string, received number'));
    expect(() => parseOperatorPolicy('cassettes: { roots: here }', dir)).toThrow(new OperatorPolicyError('ROUNDTABLE_POLICY: invalid operator policy\n  - cassettes.roots: Invalid input: expected array, received string'));
    expect(parseOperatorPolicy('repos: { roots: [repos], merge_roots: [repos/team, /base/dir/repos/x] }', dir).repos.merge_roots).toEqual(['/base/dir/repos/team', '/base/dir/repos/x']);
    expect(() => parseOperatorPolicy('repos: { roots: [repos], merge_roots: [elsewhere] }', dir)).toThrow(
      new OperatorPolicyError(
        'ROUNDTABLE_POLICY: invalid operator policy\n  - repos.merge_roots.0: /base/dir/elsewhere is not under any of repos.roots [/base/dir/repos]: a run can only merge into a repository it may read; add its directory to repos.roots, or remove it from repos.merge_roots',
      ),
    );
    expect(() => parseOperatorPolicy('repos: {}', dir)).not.toThrow();
    expect(() => parseOperatorPolicy('repos: null', dir)).toThrow(OperatorPolicyError);
  });

  it('a ROUNDTABLE_POLICY of spaces is no policy', () => {
    expect(readOperatorPolicy({ ROUNDTABLE_POLICY: '  ' })).toEqual({ policy: DEFAULT_OPERATOR_POLICY, source: null });
  });

  it('names the file that cannot be read and the way out', () => {
    const dir2 = mkdtempSync(path.join(tmpdir(), 'policy-'));
    expect(() => readOperatorPolicy({ ROUNDTABLE_POLICY: dir2 })).toThrow(
      new OperatorPolicyError(`ROUNDTABLE_POLICY=${dir2} cannot be read (EISDIR); point it at the operator's policy file, or unset it for the safe defaults`),
    );
  });

  it('names the file in the errors of its content, and trims the variable', () => {
    const dir2 = mkdtempSync(path.join(tmpdir(), 'policy-'));
    const file = path.join(dir2, 'p.yaml');
    writeFileSync(file, 'sandbox: { max_pids: lots }');
    expect(() => readOperatorPolicy({ ROUNDTABLE_POLICY: ` ${file} ` })).toThrow(new RegExp(`^ROUNDTABLE_POLICY=${file}: invalid operator policy\\n`));
  });
});
