import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { ConfigIssue, loadProjectConfig, ProjectConfigError } from './load-project-config';
import { PROVIDER_TYPES } from './project-config.schema';

const ROLES = ['proposer', 'critic', 'reviser', 'engineer', 'validator', 'synthesizer'] as const;

interface RawConfig {
  [field: string]: unknown;
  providers: Record<string, Record<string, unknown>>;
  agents: Record<string, Record<string, unknown>>;
}

/** A minimal valid config: one replay provider with an absolute cassette, every role on it. */
function base(): RawConfig {
  return {
    project: 'demo',
    objective: 'build a thing',
    providers: { replay: { type: 'replay', cassette: '/abs/cassette.yaml' } },
    agents: Object.fromEntries(ROLES.map((r) => [r, { provider: 'replay', model: 'm' }])),
  };
}

/** The issues a config is refused with; fails the test if it loads. */
function issuesOf(input: unknown, env: Record<string, string | undefined> = {}, baseDir?: string): ConfigIssue[] {
  try {
    loadProjectConfig(input, { env, baseDir });
  } catch (e) {
    expect(e).toBeInstanceOf(ProjectConfigError);
    expect((e as ProjectConfigError).code).toBe('INVALID_PROJECT_CONFIG');
    return (e as ProjectConfigError).issues;
  }
  throw new Error('expected the config to be refused');
}

function issueAt(issues: ConfigIssue[], p: string): ConfigIssue {
  const found = issues.find((i) => i.path === p);
  if (!found) throw new Error(`no issue at ${p}; got ${JSON.stringify(issues)}`);
  return found;
}

describe('loadProjectConfig: files that load', () => {
  it('loads examples/dd-demo/project.yaml, resolving the cassette against baseDir', () => {
    const dir = path.resolve(__dirname, '../../../../examples/dd-demo');
    const cfg = loadProjectConfig(readFileSync(path.join(dir, 'project.yaml'), 'utf8'), { env: {}, baseDir: dir });
    expect(cfg.project).toBe('dd-demo');
    expect(cfg.requirements).toHaveLength(3);
    expect(cfg.agents.validator.model).toBe('qwen3:30b-a3b');
    expect(cfg.providers.replay).toMatchObject({ type: 'replay', cassette: path.join(dir, 'cassette.yaml') });
    expect(path.isAbsolute((cfg.providers.replay as { cassette: string }).cassette)).toBe(true);
    expect(cfg.budget).toMatchObject({ max_rounds: 3, max_fix_rounds: 1, max_calls: 16, max_cost_usd: 5 });
    expect(cfg.test_command).toBe('python -m pytest -q');
  });

  it("loads the seed's nested `project: {name, objective, requirements}` shape", () => {
    const yaml = `
project:
  name: dd-demo
  objective: >
    Implement max_drawdown in dd.py.
  requirements:
    - "Returns 0.0 for monotonically increasing or empty series"
    - "Pure Python"
repo: ~/some/project
autonomy: 2
budget:
  max_rounds: 3
  max_fix_rounds: 1
  max_calls: 12
  per_provider:
    anthropic: { max_tokens: 120000 }
    ollama: { max_tokens: 200000 }
providers:
  anthropic: { type: anthropic, api_key_env: ANTHROPIC_API_KEY }
  openai: { type: openai_compat, api_key_env: OPENAI_API_KEY }
  xai: { type: openai_compat, api_key_env: XAI_API_KEY, base_url: https://api.x.ai/v1 }
  gemini: { type: gemini, api_key_env: GEMINI_API_KEY }
  ollama: { type: ollama, host: http://localhost:11434 }
agents:
  proposer: { provider: anthropic, model: "\${ANTHROPIC_MODEL}" }
  critic: { provider: xai, model: "\${XAI_MODEL}" }
  reviser: { provider: anthropic, model: "\${ANTHROPIC_MODEL}" }
  engineer: { provider: openai, model: "\${OPENAI_MODEL}" }
  validator:
    provider: gemini
    model: \${GEMINI_MODEL}
  synthesizer: { provider: anthropic, model: "\${ANTHROPIC_MODEL}" }
permissions:
  proposer: { workspace: none, run_tests: false }
  critic: { workspace: read, run_tests: false }
  reviser: { workspace: none, run_tests: false }
  engineer: { workspace: write, run_tests: false }
  validator: { workspace: read, run_tests: true }
  synthesizer: { workspace: read, run_tests: false }
`;
    const env = {
      HOME: '/home/u',
      ANTHROPIC_API_KEY: 'k',
      OPENAI_API_KEY: 'k',
      XAI_API_KEY: 'k',
      GEMINI_API_KEY: 'k',
      ANTHROPIC_MODEL: 'claude-x',
      XAI_MODEL: 'grok-x',
      OPENAI_MODEL: 'gpt-x',
      GEMINI_MODEL: 'gemini-x',
    };
    const cfg = loadProjectConfig(yaml, { env });
    expect(cfg.project).toBe('dd-demo');
    expect(cfg.objective).toBe('Implement max_drawdown in dd.py.\n');
    expect(cfg.requirements).toEqual(['Returns 0.0 for monotonically increasing or empty series', 'Pure Python']);
    expect(cfg.repo).toBe('/home/u/some/project');
    expect(cfg.agents.critic).toMatchObject({ provider: 'xai', model: 'grok-x' });
    expect(cfg.budget.per_provider.anthropic).toEqual({ max_tokens: 120000 });
    expect(cfg.permissions?.validator).toEqual({ workspace: 'read', run_tests: true });
  });

  it('loads a partial permissions map as written: the roles left out keep their defaults (permissionOf)', () => {
    const cfg = loadProjectConfig({ ...base(), permissions: { proposer: { workspace: 'none' }, critic: { workspace: 'none' } } }, { env: {} });
    expect(cfg.permissions).toEqual({ proposer: { workspace: 'none', run_tests: false }, critic: { workspace: 'none', run_tests: false } });
  });

  it('loads workspace none on a role that reads files on a repo run (it is then given no tree and no reading)', () => {
    const cfg = loadProjectConfig({ ...base(), repo: '/srv/app', file_requests: { max_rounds: 2 }, permissions: { critic: { workspace: 'none' }, validator: { workspace: 'none' } } }, { env: {} });
    expect(cfg.permissions?.critic?.workspace).toBe('none');
  });

  it('loads an optional reviewer, and leaves it out when not named', () => {
    expect(loadProjectConfig(base(), { env: {} }).agents.reviewer).toBeUndefined();
    const raw = base();
    raw.agents.reviewer = { provider: 'replay', model: 'qwen3:30b-a3b' };
    expect(loadProjectConfig(raw, { env: {} }).agents.reviewer).toMatchObject({ provider: 'replay', model: 'qwen3:30b-a3b', mode: 'answer' });
  });

  it('accepts an already-parsed object (a config posted as JSON)', () => {
    expect(loadProjectConfig(base(), { env: {} }).project).toBe('demo');
  });

  it('fills in the defaults', () => {
    const cfg = loadProjectConfig(base(), { env: {} });
    expect(cfg.workflow).toBe('build');
    expect(cfg.autonomy).toBe(2);
    expect(cfg.on_unresolved).toBe('implement');
    expect(cfg.requirements).toEqual([]);
    expect(cfg.budget).toEqual({ max_rounds: 3, max_fix_rounds: 1, max_calls: 16, max_tokens: 200_000, max_seconds: 900, per_provider: {} });
    expect(cfg.agents.proposer).toMatchObject({ mode: 'answer', timeout_s: 180, max_tokens: 4096, temperature: 0.2 });
    expect(cfg.test_timeout_s).toBe(120);
    expect(cfg.providers.replay).toMatchObject({ latency_ms: 0 });
  });

  it('fills budget defaults around the fields given', () => {
    const cfg = loadProjectConfig({ ...base(), budget: { max_calls: 4 } }, { env: {} });
    expect(cfg.budget).toMatchObject({ max_calls: 4, max_rounds: 3, max_fix_rounds: 1 });
  });

  it('uses the default of ${VAR:-default} when VAR is unset or empty, and VAR when set', () => {
    const cfg = base();
    cfg.agents.critic.model = '${MODEL:-grok-4}';
    expect(loadProjectConfig(cfg, { env: {} }).agents.critic.model).toBe('grok-4');
    expect(loadProjectConfig(cfg, { env: { MODEL: '' } }).agents.critic.model).toBe('grok-4');
    expect(loadProjectConfig(cfg, { env: { MODEL: 'grok-5' } }).agents.critic.model).toBe('grok-5');
  });

  it('expands variables inside a longer string and inside lists', () => {
    const cfg = { ...base(), objective: 'build ${WHAT} now', requirements: ['uses ${LANG:-python}'] };
    const out = loadProjectConfig(cfg, { env: { WHAT: 'dd.py' } });
    expect(out.objective).toBe('build dd.py now');
    expect(out.requirements).toEqual(['uses python']);
  });

  it('does not require the key of a provider no agent uses', () => {
    const cfg = base();
    cfg.providers.anthropic = { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' };
    const loaded = loadProjectConfig(cfg, { env: {} });
    expect(loaded.providers.anthropic).toMatchObject({ type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' });
    expect(new Set(Object.values(loaded.agents).map((a) => a.provider))).toEqual(new Set(['replay']));
  });

  it('accepts a used provider whose key is set', () => {
    const cfg = base();
    cfg.providers.anthropic = { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' };
    cfg.agents.proposer.provider = 'anthropic';
    expect(loadProjectConfig(cfg, { env: { ANTHROPIC_API_KEY: 'sk' } }).agents.proposer.provider).toBe('anthropic');
  });

  it('resolves a relative repo against baseDir and leaves absolute paths alone', () => {
    expect(loadProjectConfig({ ...base(), repo: '../code' }, { env: {}, baseDir: '/p/examples/x' }).repo).toBe('/p/examples/code');
    expect(loadProjectConfig({ ...base(), repo: '/srv/code' }, { env: {}, baseDir: '/p' }).repo).toBe('/srv/code');
  });
});

describe('loadProjectConfig: files that are refused', () => {
  it('reports malformed YAML with its line', () => {
    const issues = issuesOf('project: demo\nobjective: x\nproviders: {replay: [\n');
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe('');
    expect(issues[0].message).toBe('line 3, column 21: malformed YAML: this "[" is never closed: a "]" is missing before the end of the file');
  });

  it('points a brace left open on line 10 at line 10, saying the position once (issue 22)', () => {
    const lines = [
      'project: demo',
      'objective: x',
      'requirements:',
      '  - r',
      'providers:',
      '  replay: { type: replay, cassette: /c.yaml }',
      'agents:',
      '  proposer: { provider: replay, model: m }',
      '  critic: { provider: replay, model: m }',
      '  reviser: { provider: replay, model: m',
      'test_command: pytest',
      '',
    ];
    expect(issuesOf(lines.join('\n'))).toEqual([
      { path: '', message: 'line 10, column 12: malformed YAML: this "{" is never closed: a "}" is missing before line 11, column 1' },
    ]);
  });

  it('gives the line of a bad indentation', () => {
    const issues = issuesOf('project: demo\nobjective: x\n  bad: indent\n');
    expect(issues[0].message).toMatch(/^line [23], column \d+: malformed YAML: [^:]*$/);
  });

  it('hints at quoting when ${VAR} is unquoted inside a { } mapping, as the seed writes it', () => {
    const yaml = 'project: demo\nobjective: x\nagents:\n  critic: { provider: xai, model: ${XAI_MODEL} }\n';
    const issues = issuesOf(yaml, { XAI_MODEL: 'grok-4' });
    expect(issues[0].message).toMatch(/^line 4, column \d+: malformed YAML: /);
    expect(issues[0].message).toContain('quote variables: "${VAR}"');
  });

  it('does not hint at quoting for an unrelated YAML error', () => {
    expect(issuesOf('project: demo\nobjective: x\n  bad: indent\n')[0].message).not.toContain('quote');
  });

  it.each([
    ['a YAML list', '- a\n- b\n'],
    ['a scalar', 'just text'],
    ['an empty file', ''],
  ])('refuses %s with a clear error', (_what, text) => {
    const issues = issuesOf(text);
    expect(issues).toEqual([{ path: '', message: expect.stringMatching(/a project config is a YAML or JSON mapping/) }]);
  });

  it('refuses null and an array passed as objects', () => {
    expect(issuesOf(null)[0].message).toMatch(/mapping/);
    expect(issuesOf([base()])[0].message).toMatch(/mapping/);
  });

  it('names agents.critic.provider for an unknown provider and lists the known ones', () => {
    const cfg = base();
    cfg.providers.ollama = { type: 'ollama' };
    cfg.agents.critic.provider = 'xai';
    const issue = issueAt(issuesOf(cfg), 'agents.critic.provider');
    expect(issue.message).toContain('unknown provider "xai"');
    expect(issue.message).toContain('known: replay, ollama');
  });

  it('takes agent mode on an API provider (the engine runs a tool loop), and refuses a CLI with no agent mode, naming the fix', () => {
    const cfg = base();
    cfg.agents.engineer.mode = 'agent';
    expect(loadProjectConfig(cfg, { env: {} }).agents.engineer.mode).toBe('agent');
    cfg.providers.gem = { type: 'cli', cli: 'gemini' };
    cfg.agents.engineer.provider = 'gem';
    expect(issueAt(issuesOf(cfg), 'agents.engineer.provider').message).toBe(
      'agents.engineer.mode is agent, but "gem" is the gemini CLI; agent mode needs a claude, codex or grok CLI provider, or an API provider (anthropic, openai_compat, gemini, ollama), or set mode: answer',
    );
  });

  it('refuses an agent-mode engineer whose fallback is of the other kind (a CLI loop and the tool loop)', () => {
    const cfg = base();
    cfg.providers.claude = { type: 'cli', cli: 'claude' };
    cfg.agents.engineer = { ...cfg.agents.engineer, mode: 'agent', fallback: 'claude' };
    expect(issueAt(issuesOf(cfg), 'agents.engineer.fallback').message).toMatch(/"replay" is an API provider \(the engine's tool loop\) while the fallback "claude" is not: a loop cannot switch kinds halfway/);
  });

  it('refuses agent mode on the agy CLI, saying why and naming the CLIs that have it', () => {
    const cfg = base();
    cfg.providers.google = { type: 'cli', cli: 'agy' };
    cfg.agents.engineer = { provider: 'google', model: 'default', mode: 'agent' };
    expect(issueAt(issuesOf(cfg), 'agents.engineer.provider').message).toBe(
      'agents.engineer.mode is agent, but "google" is the agy CLI (agy has no flag that keeps its edits inside the worktree: --dangerously-skip-permissions approves every tool anywhere); agent mode needs a claude, codex or grok CLI provider, or an API provider (anthropic, openai_compat, gemini, ollama), or set mode: answer',
    );
    cfg.agents.engineer.mode = 'answer';
    expect(loadProjectConfig(cfg, { env: {} }).providers.google).toMatchObject({ type: 'cli', cli: 'agy' });
  });

  it('refuses agent mode on any role but the engineer', () => {
    const cfg = base();
    cfg.providers.claude_cli = { type: 'cli', cli: 'claude' };
    cfg.agents.critic = { provider: 'claude_cli', model: 'default', mode: 'agent' };
    expect(issueAt(issuesOf(cfg), 'agents.critic.mode').message).toMatch(/engineer only/);
  });

  it('accepts agent mode on an engineer served by the claude, codex or grok CLI', () => {
    for (const cli of ['claude', 'codex', 'grok']) {
      const cfg = base();
      cfg.providers.agent_cli = { type: 'cli', cli };
      cfg.agents.engineer = { provider: 'agent_cli', model: 'default', mode: 'agent' };
      expect(loadProjectConfig(cfg, { env: {} }).agents.engineer.mode).toBe('agent');
    }
  });

  it('names agents.<role>.fallback for an unknown fallback provider', () => {
    const cfg = base();
    cfg.agents.engineer.fallback = 'openai';
    const issues = issuesOf(cfg);
    expect(issues).toHaveLength(1);
    expect(issueAt(issues, 'agents.engineer.fallback').message).toMatch(/unknown provider "openai".*known: replay/);
  });

  it('lists the valid types for an unknown provider type', () => {
    const cfg = base();
    cfg.providers.grok = { type: 'grok', api_key_env: 'XAI_API_KEY' };
    const issues = issuesOf(cfg);
    expect(issues).toHaveLength(1);
    const issue = issueAt(issues, 'providers.grok.type');
    expect(issue.message).toMatch(/^unknown provider type/);
    for (const t of PROVIDER_TYPES) expect(issue.message).toContain(t);
  });

  it('names the variable and the field when ${MODEL} is unset', () => {
    const cfg = base();
    cfg.agents.critic.model = '${MODEL}';
    const issues = issuesOf(cfg);
    expect(issues).toHaveLength(1);
    const issue = issueAt(issues, 'agents.critic.model');
    expect(issue.message).toContain('environment variable MODEL is not set');
    expect(issue.message).toContain('${MODEL:-default}');
  });

  it('names the provider and the variable when a used provider has no key', () => {
    const cfg = base();
    cfg.providers.anthropic = { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' };
    cfg.agents.synthesizer.provider = 'anthropic';
    const issues = issuesOf(cfg, { ANTHROPIC_API_KEY: '' });
    expect(issues).toHaveLength(1);
    const issue = issueAt(issues, 'providers.anthropic.api_key_env');
    expect(issue.message).toContain('provider "anthropic"');
    expect(issue.message).toContain('ANTHROPIC_API_KEY');
  });

  it('never checks a key against a service\'s environment (refuse: the keys are the provider-workers\')', () => {
    const cfg = base();
    cfg.providers.anthropic = { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' };
    cfg.agents.synthesizer.provider = 'anthropic';
    expect(loadProjectConfig(cfg, { env: {}, variables: 'refuse' }).agents.synthesizer.provider).toBe('anthropic');
  });

  it('checks the key of a provider used only as a fallback', () => {
    const cfg = base();
    cfg.providers.gemini = { type: 'gemini', api_key_env: 'GEMINI_API_KEY' };
    cfg.agents.validator.fallback = 'gemini';
    expect(issueAt(issuesOf(cfg), 'providers.gemini.api_key_env').message).toContain('GEMINI_API_KEY');
  });

  it('refuses per_provider caps for an undeclared provider', () => {
    const issues = issuesOf({ ...base(), budget: { per_provider: { anthropic: { max_tokens: 1000 } } } });
    expect(issueAt(issues, 'budget.per_provider.anthropic').message).toMatch(/unknown provider "anthropic".*known: replay/);
  });

  it('refuses a relative cassette without baseDir, naming providers.<name>.cassette', () => {
    const cfg = base();
    cfg.providers.replay.cassette = 'cassette.yaml';
    const issue = issueAt(issuesOf(cfg), 'providers.replay.cassette');
    expect(issue.message).toContain('"cassette.yaml" is relative');
  });

  it('refuses a relative repo without baseDir', () => {
    expect(issueAt(issuesOf({ ...base(), repo: 'code' }), 'repo').message).toMatch(/relative/);
  });

  it('reports a misspelt top-level field as an unknown field, by name', () => {
    const issues = issuesOf({ ...base(), budgett: { max_rounds: 2 } });
    expect(issues).toHaveLength(1);
    expect(issues[0].message).toContain('unknown field(s) "budgett"');
  });

  it('reports a misspelt nested field where it is', () => {
    const cfg = base();
    cfg.agents.critic.modle = 'x';
    expect(issueAt(issuesOf(cfg), 'agents.critic').message).toContain('"modle"');
  });

  it('names agents.<role> when a role is missing', () => {
    const cfg = base();
    delete cfg.agents.validator;
    const issues = issuesOf(cfg);
    expect(issues.map((i) => i.path)).toEqual(['agents.validator']);
  });

  it('refuses an agent role the build workflow does not have', () => {
    const cfg = base();
    cfg.agents.researcher = { provider: 'replay', model: 'm' };
    expect(issueAt(issuesOf(cfg), 'agents').message).toContain('"researcher"');
  });

  it('refuses an unknown provider for the optional reviewer too', () => {
    const cfg = base();
    cfg.agents.reviewer = { provider: 'ollama', model: 'qwen3:30b-a3b' };
    expect(issueAt(issuesOf(cfg), 'agents.reviewer.provider').message).toContain('unknown provider "ollama"');
  });

  it('refuses agent mode for the reviewer', () => {
    const cfg = base();
    cfg.agents.reviewer = { provider: 'replay', model: 'm', mode: 'agent' };
    expect(issueAt(issuesOf(cfg), 'agents.reviewer.mode').message).toContain('for the engineer only');
  });

  it('refuses an engineer without workspace write, naming the fix', () => {
    const issues = issuesOf({ ...base(), permissions: { engineer: { workspace: 'read' } } });
    expect(issues).toEqual([
      { path: 'permissions.engineer.workspace', message: 'is read, but the engineer writes the implementation; set permissions.engineer.workspace: write' },
    ]);
  });

  it.each(['proposer', 'critic', 'reviser', 'validator', 'reviewer', 'synthesizer'])('refuses workspace write on the %s, naming the fix', (role) => {
    const issues = issuesOf({ ...base(), permissions: { [role]: { workspace: 'write' } } });
    expect(issues).toEqual([
      {
        path: `permissions.${role}.workspace`,
        message: `is write, but only the engineer's output is written to the workspace; set permissions.${role}.workspace: read (or none)`,
      },
    ]);
  });

  it('refuses an unknown role in permissions', () => {
    expect(issuesOf({ ...base(), permissions: { researcher: { workspace: 'read' } } })[0].path).toMatch(/^permissions/);
  });

  describe('gates and merge (people in the loop)', () => {
    const withRepo = () => ({ ...base(), repo: '/srv/repos/app' });
    it('loads the criteria and merge gates with a merge target; strategy defaults to merge', () => {
      const cfg = loadProjectConfig({ ...withRepo(), approvals: ['criteria', 'merge'], merge: { into: 'main' } }, { env: {} });
      expect(cfg.approvals).toEqual(['criteria', 'merge']);
      expect(cfg.merge).toEqual({ into: 'main', strategy: 'merge' });
      expect(cfg.on_needs_evidence).toBe('end');
    });
    it('has no gates by default', () => {
      expect(loadProjectConfig(base(), { env: {} }).approvals).toEqual([]);
    });
    it('refuses the merge gate without merge.into, naming the fix', () => {
      expect(issueAt(issuesOf({ ...withRepo(), approvals: ['merge'] }), 'merge').message).toMatch(/add merge: \{ into: main \}/);
    });
    it('refuses autonomy 3 without merge, naming autonomy 2 as the other way', () => {
      expect(issueAt(issuesOf({ ...withRepo(), autonomy: 3 }), 'merge').message).toMatch(/autonomy 3 merges a solved run.*autonomy: 2/);
    });
    it('refuses merge on a greenfield run (no repo)', () => {
      expect(issueAt(issuesOf({ ...base(), repo: undefined, merge: { into: 'main' } }), 'merge.into').message).toMatch(/greenfield run \(no repo\) offers its branch as a bundle/);
    });
    it('refuses a gate the autonomy level never reaches', () => {
      expect(issueAt(issuesOf({ ...withRepo(), autonomy: 1, approvals: ['criteria'] }), 'approvals').message).toMatch(/autonomy 1 never does/);
    });
    it('refuses a gate that is not one, naming the gates there are', () => {
      expect(issueAt(issuesOf({ ...withRepo(), approvals: ['deploy'] }), 'approvals.0').message).toBe('a gate is one of criteria, merge');
    });
    it('takes the team pipeline by default, and solo when named', () => {
      expect(loadProjectConfig(base(), { env: {} }).pipeline).toBe('team');
      expect(loadProjectConfig({ ...base(), pipeline: 'solo' }, { env: {} }).pipeline).toBe('solo');
    });
    it('refuses a gate on the solo pipeline, naming the field and both ways out', () => {
      expect(issueAt(issuesOf({ ...withRepo(), pipeline: 'solo', approvals: ['criteria'] }), 'approvals').message).toMatch(/pipeline: solo opens no gate.*names criteria; drop approvals, or use pipeline: team/);
    });
    it('refuses the solo pipeline below autonomy 2', () => {
      expect(issueAt(issuesOf({ ...base(), pipeline: 'solo', autonomy: 1 }), 'autonomy').message).toMatch(/pipeline: solo only implements and tests, which autonomy 1 never does/);
    });
    it('refuses a gate named twice', () => {
      expect(issueAt(issuesOf({ ...withRepo(), approvals: ['criteria', 'criteria'] }), 'approvals').message).toBe('gate criteria is named twice; name each gate once');
    });
    it.each(['-x', 'a..b', 'has space'])('refuses merge.into %p, saying what a branch name is', (into) => {
      expect(issueAt(issuesOf({ ...withRepo(), merge: { into } }), 'merge.into').message).toMatch(/is a branch name such as main/);
    });
  });

  it('refuses a config with no providers', () => {
    expect(issueAt(issuesOf({ ...base(), providers: {} }), 'providers').message).toMatch(/at least one provider/);
  });

  it.each([
    ['autonomy', 4],
    ['workflow', 'debate'],
    ['on_needs_evidence', 'ignore'],
    ['on_unresolved', 'ignore'],
  ])('refuses %s = %p', (field, value) => {
    expect(issuesOf({ ...base(), [field]: value }).map((i) => i.path)).toEqual([field]);
  });

  it('refuses a provider name that cannot be a queue name, saying what a name may hold', () => {
    const cfg = base();
    cfg.providers['Open:AI'] = { type: 'ollama' };
    expect(issueAt(issuesOf(cfg), 'providers.Open:AI').message).toBe(
      'invalid name "Open:AI": provider names are lowercase letters, digits, _ or -, starting with a letter',
    );
  });

  it('reports an unset variable and an unrelated schema problem together', () => {
    const cfg = { ...base(), autonomy: 9 };
    cfg.agents.critic.model = '${MODEL}';
    expect(issuesOf(cfg).map((i) => i.path)).toEqual(['agents.critic.model', 'autonomy']);
  });

  it('refuses an api key pasted where the variable name belongs', () => {
    const cfg = base();
    cfg.providers.anthropic = { type: 'anthropic', api_key_env: 'sk-ant-123' };
    expect(issueAt(issuesOf(cfg), 'providers.anthropic.api_key_env').message).toMatch(/names an environment variable/);
  });

  it('lists several schema problems at once', () => {
    const cfg: RawConfig = { ...base(), budgett: {}, autonomy: 5 };
    delete cfg.objective;
    delete cfg.agents.critic;
    cfg.agents.proposer.model = '${NOPE}';
    const paths = issuesOf(cfg).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['', 'objective', 'autonomy', 'agents.critic', 'agents.proposer.model']));
  });

  it('lists several reference problems at once', () => {
    const cfg = base();
    cfg.providers.replay.cassette = 'rel.yaml';
    cfg.providers.anthropic = { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' };
    cfg.agents.proposer.provider = 'anthropic';
    cfg.agents.critic.provider = 'xai';
    cfg.agents.engineer.fallback = 'openai';
    cfg.budget = { per_provider: { gemini: {} } };
    const paths = issuesOf(cfg).map((i) => i.path);
    expect(paths.sort()).toEqual(
      [
        'agents.critic.provider',
        'agents.engineer.fallback',
        'budget.per_provider.gemini',
        'providers.anthropic.api_key_env',
        'providers.replay.cassette',
      ].sort(),
    );
  });

  it('puts every issue in the error message, one per line', () => {
    const cfg = base();
    cfg.agents.critic.provider = 'xai';
    cfg.agents.reviser.provider = 'yai';
    try {
      loadProjectConfig(stringify(cfg), { env: {} });
      throw new Error('expected a ProjectConfigError');
    } catch (e) {
      const lines = (e as Error).message.split('\n');
      expect(lines[0]).toBe('invalid project config:');
      expect(lines.slice(1)).toEqual([
        expect.stringMatching(/^ {2}- agents\.critic\.provider: unknown provider "xai"/),
        expect.stringMatching(/^ {2}- agents\.reviser\.provider: unknown provider "yai"/),
      ]);
    }
  });
});

describe('the trust boundary in the loader', () => {
  it('refuses ${VAR} anywhere when the services load a config, naming each field, and expands nothing', () => {
    const raw = base();
    raw.objective = 'db=${DATABASE_URL} tokens=${API_TOKENS}';
    raw.agents.critic.model = '${MODEL:-m}';
    let issues: ConfigIssue[] = [];
    try {
      loadProjectConfig(raw, { env: { DATABASE_URL: 'postgres://secret', API_TOKENS: 'w:t:write' }, variables: 'refuse' });
    } catch (e) {
      issues = (e as ProjectConfigError).issues;
    }
    expect(issues.map((i) => i.path)).toEqual(['objective', 'agents.critic.model']);
    expect(issues[0].message).toMatch(/never expand variables.*expand it in your shell before posting/);
    expect(JSON.stringify(issues)).not.toContain('postgres://secret');
  });

  it('refuses a CLI binary path in a project file and says whose setting it is', () => {
    const raw = base();
    raw.providers.claude_cli = { type: 'cli', cli: 'claude', binary: '/tmp/evil.sh' };
    expect(issueAt(issuesOf(raw), 'providers.claude_cli.binary').message).toMatch(/never a path.*cli.binaries in ROUNDTABLE_POLICY/);
  });
});
