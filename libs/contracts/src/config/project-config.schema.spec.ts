import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { PanelProjectConfig } from '../panel/panel-project-config.schema';
import { expandEnv, loadProjectConfig, ProjectConfigError, type ConfigIssue } from './load-project-config';
import { AgentConfig, BudgetConfig, modelIdProblem, ProjectConfig, PROVIDER_TYPES, ProviderConfig } from './project-config.schema';

describe('ProviderConfig', () => {
  it('PROVIDER_TYPES lists exactly the discriminated union members', () => {
    const types = ProviderConfig.options.map((o) => o.shape.type.value);
    expect([...PROVIDER_TYPES].sort()).toEqual(types.sort());
  });

  it.each([
    [{ type: 'replay', cassette: '/c.yaml' }],
    [{ type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' }],
    [{ type: 'openai_compat', api_key_env: 'XAI_API_KEY', base_url: 'https://api.x.ai/v1' }],
    [{ type: 'gemini', api_key_env: 'GEMINI_API_KEY' }],
    [{ type: 'ollama' }],
    [{ type: 'cli', cli: 'claude' }],
  ])('accepts %j', (p) => {
    expect(ProviderConfig.parse(p).type).toBe(p.type);
  });

  it('defaults the ollama host', () => {
    expect(ProviderConfig.parse({ type: 'ollama' })).toEqual({ type: 'ollama', host: 'http://localhost:11434' });
  });

  it('refuses a field that belongs to another type', () => {
    expect(ProviderConfig.safeParse({ type: 'ollama', api_key_env: 'X' }).success).toBe(false);
  });

  it('refuses a replay provider without a cassette and a cli provider for an unknown tool', () => {
    expect(ProviderConfig.safeParse({ type: 'replay' }).success).toBe(false);
    expect(ProviderConfig.safeParse({ type: 'cli', cli: 'vim' }).success).toBe(false);
  });
});

describe('AgentConfig', () => {
  it('refuses temperature outside [0,2] and a zero max_turns', () => {
    expect(AgentConfig.safeParse({ provider: 'p', model: 'm', temperature: 2.5 }).success).toBe(false);
    expect(AgentConfig.safeParse({ provider: 'p', model: 'm', max_turns: 0 }).success).toBe(false);
  });
});

describe('AgentConfig: model ids', () => {
  const ROOT = path.resolve(__dirname, '../../../..');
  const agent = (over: Record<string, unknown>) => AgentConfig.safeParse({ provider: 'p', model: 'claude-sonnet-4-5', ...over });

  /** Every `model` / `fallback_model` value in the YAML files under `dir`, after `${VAR:-default}` expansion with no variable set. */
  function modelIdsIn(dir: string): string[] {
    const found: string[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          if ((k === 'model' || k === 'fallback_model') && typeof v === 'string' && v !== '') found.push(v);
          else walk(v);
        }
      }
    };
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
      walk(expandEnv(parseYaml(readFileSync(path.join(entry.parentPath, entry.name), 'utf8')), [], {}, []));
    }
    return found;
  }

  const BAD: [string, RegExp][] = [
    ['--config=/tmp/evil.toml', /starts with "-", which a CLI would read as a flag/],
    ['-c', /starts with "-"/],
    ['gpt 5', /whitespace or a control character/],
    ['gpt-5\n--dangerously-bypass-approvals-and-sandbox', /whitespace or a control character/],
    ['gpt-5\t', /whitespace or a control character/],
    ['gpt-5\u0000', /whitespace or a control character/],
    ['gpt-5\u2028x', /whitespace or a control character/],
    ['gemini\u200B-2.5-pro', /whitespace or a control character/],
    ['../../v1beta/files', /"\." or "\.\." path segment/],
    ['models/../tunedModels/x', /"\." or "\.\." path segment/],
    ['gemini-2.5-pro/..', /"\." or "\.\." path segment/],
    ['./gemini-2.5-pro', /"\." or "\.\." path segment/],
    ['gemini-2.5-pro:generateContent?key=x', /holds "\?"/],
    ['gemini-2.5-pro#', /holds "#"/],
    ['..%2F..%2Fv1beta%2Ffiles', /holds "%"/],
    ['%2e%2e/files', /holds "%"/],
    ['models\\..\\files', /holds "\\"/],
    ['', /is empty/],
  ];

  it.each(BAD)('refuses model %j, naming the field', (id, why) => {
    const r = agent({ model: id });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path)).toEqual([['model']]);
    expect(r.error!.issues[0].message).toMatch(/^model /);
    expect(r.error!.issues[0].message).toMatch(why);
  });

  it.each(BAD)('refuses fallback_model %j, naming the field', (id, why) => {
    const r = agent({ fallback: 'q', fallback_model: id });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path)).toEqual([['fallback_model']]);
    expect(r.error!.issues[0].message).toMatch(/^fallback_model /);
    expect(r.error!.issues[0].message).toMatch(why);
  });

  it('shows an invisible character escaped, so the message says what is there', () => {
    expect(modelIdProblem('gpt-5\u2028x')).toContain('"gpt-5\\u2028x"');
    expect(modelIdProblem('gemini\u200B-2.5-pro')).toContain('"gemini\\u200b-2.5-pro"');
  });

  it.each([
    'claude-sonnet-5-5',
    'claude-sonnet-4-5',
    'gpt-5.1',
    'gemini-2.5-pro',
    'grok-4',
    'llama3.1:8b',
    'qwen2.5-coder:7b',
    'hf.co/org/model:Q4_K_M',
    'models/gemini-2.5-flash',
    'replay-model',
    'default',
    'claude-3-5-sonnet@20240620',
    'anthropic.claude-3-5-sonnet-20240620-v1:0',
    'meta-llama/llama-3.1-8b-instruct:free',
    'accounts/fireworks/models/llama-v3p1-8b-instruct',
  ])('accepts the model id %j', (id) => {
    expect(modelIdProblem(id)).toBeNull();
    expect(agent({ model: id, fallback: 'q', fallback_model: id }).success).toBe(true);
  });

  it('accepts every model id the examples and the test fixtures use', () => {
    const ids = [...new Set([...modelIdsIn(path.join(ROOT, 'examples')), ...modelIdsIn(path.join(ROOT, 'test/fixtures'))])];
    // The walk found the examples' ids (defaults of their ${VAR:-…}) and the fixtures' own.
    expect(ids).toEqual(expect.arrayContaining(['claude-sonnet-5-5', 'qwen3:30b-a3b', 'sonnet', 'default', 'claude-sonnet-4-5', 'gpt-5-codex', 'grok-4']));
    for (const id of ids) expect([id, modelIdProblem(id)]).toEqual([id, null]);
  });

  it('the loader names the role: agents.<role>.model, agents.<role>.fallback_model', () => {
    const raw = {
      project: 'p',
      objective: 'o',
      providers: { r: { type: 'replay', cassette: '/c.yaml' } },
      agents: Object.fromEntries(
        ['proposer', 'critic', 'reviser', 'engineer', 'validator', 'synthesizer'].map((role) => [role, { provider: 'r', model: 'replay-model' }]),
      ) as Record<string, Record<string, string>>,
    };
    raw.agents.critic = { provider: 'r', model: '--help' };
    raw.agents.engineer = { provider: 'r', model: 'replay-model', fallback: 'r', fallback_model: 'x?y' };
    let issues: ConfigIssue[] = [];
    try {
      loadProjectConfig(raw, { env: {} });
    } catch (e) {
      issues = (e as ProjectConfigError).issues;
    }
    expect(issues).toEqual([
      { path: 'agents.critic.model', message: expect.stringMatching(/^model "--help" starts with "-"/) },
      { path: 'agents.engineer.fallback_model', message: expect.stringMatching(/^fallback_model "x\?y" holds "\?"/) },
    ]);
  });

  it('the panel\'s judges and moderator are held to the same rule', () => {
    const judge = { provider: 'r', model: 'grok-4' };
    const r = PanelProjectConfig.safeParse({
      workflow: 'panel',
      project: 'p',
      idea: { title: 't', description: 'd', target_user: 'u' },
      providers: { r: { type: 'replay', cassette: '/c.yaml' } },
      judges: { vc: { ...judge, model: '-o/tmp/x' }, engineer: judge, pm: judge, customer: judge, competitor: judge },
      moderator: { ...judge, model: 'models/../files' },
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['judges.vc.model', 'moderator.model']);
  });
});

describe('BudgetConfig', () => {
  it('allows zero fix rounds but not zero rounds', () => {
    expect(BudgetConfig.parse({ max_fix_rounds: 0 }).max_fix_rounds).toBe(0);
    expect(BudgetConfig.safeParse({ max_rounds: 0 }).success).toBe(false);
  });
});

describe('ProjectConfig', () => {
  it('requires project and objective with messages that say what they are', () => {
    const r = ProjectConfig.safeParse({ project: '', objective: '', providers: {}, agents: {} });
    expect(r.success).toBe(false);
    const messages = Object.fromEntries(r.error!.issues.map((i) => [i.path.join('.'), i.message]));
    expect(messages.project).toMatch(/names the project/);
    expect(messages.objective).toMatch(/says what to build/);
  });
});

describe('a project file cannot carry a team’s or a project’s caps across runs (issue 26: the operator’s policy)', () => {
  it('refuses them in budget and as a top-level budgets section', () => {
    expect(BudgetConfig.safeParse({ max_calls_per_day: 1000 }).success).toBe(false);
    expect(BudgetConfig.safeParse({ max_usd_total: 1000 }).success).toBe(false);
    const config = parseYaml(readFileSync(path.resolve(__dirname, '../../../../examples/dd-demo/project.yaml'), 'utf8')) as Record<string, unknown>;
    const parsed = ProjectConfig.safeParse({ ...config, budgets: { teams: { default: { max_calls_per_day: 1e6 } } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.some((i) => i.code === 'unrecognized_keys' && i.keys.includes('budgets'))).toBe(true);
  });
});
