import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_OPERATOR_POLICY, OperatorPolicy, type OperatorPolicyInput } from './operator-policy.schema';
import { pathUnderRoots, projectPolicyIssues, providerPolicyIssues, repoPolicyIssues, sandboxPolicyIssues, urlAllowed } from './policy-checks';
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
