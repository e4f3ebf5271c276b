import { AgentConfig, BudgetConfig, ProjectConfig, PROVIDER_TYPES, ProviderConfig } from './project-config.schema';

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
