import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadProjectConfig, ProjectConfigError } from '@roundtable/contracts';
import { createProvider } from './provider-registry';

const EXAMPLES = path.resolve(__dirname, '../../../examples');
const load = (name: string, env: Record<string, string | undefined>) => {
  const file = path.join(EXAMPLES, name, 'project.yaml');
  return loadProjectConfig(readFileSync(file, 'utf8'), { env, baseDir: path.dirname(file) });
};

describe('example project files', () => {
  it('mixed-team: Claude proposes, Grok critiques, Codex implements, a local model reviews, Claude synthesizes, with no API key', () => {
    const cfg = load('mixed-team', { HOME: '/home/x' });
    const seat = (role: keyof typeof cfg.agents) => `${cfg.agents[role]?.provider}/${cfg.agents[role]?.model}`;
    expect(Object.keys(cfg.agents).map((r) => seat(r as keyof typeof cfg.agents))).toEqual([
      'claude_cli/sonnet',
      'grok_cli/default',
      'claude_cli/sonnet',
      'codex_cli/default',
      'ollama/qwen3:30b-a3b',
      'claude_cli/sonnet',
    ]);
    expect(cfg.agents.critic).toMatchObject({ fallback: 'claude_cli', fallback_model: 'sonnet', max_turns: 3, effort: 'medium', timeout_s: 600 });
    expect(cfg.providers.grok_cli).toMatchObject({ concurrency: 1 });
    for (const [name, pc] of Object.entries(cfg.providers)) expect(createProvider(name, pc, { env: {} }).name).toBe(name);
  });

  it('mixed-team: model ids and the Ollama host come from the environment when set', () => {
    const cfg = load('mixed-team', { CLAUDE_MODEL: 'opus', GROK_MODEL: 'grok-4-fast', CODEX_MODEL: 'gpt-5-codex', OLLAMA_HOST: 'http://gpu-box:11434', OLLAMA_MODEL: 'qwen3:32b' });
    expect(cfg.agents.proposer.model).toBe('opus');
    expect(cfg.agents.critic).toMatchObject({ model: 'grok-4-fast', fallback_model: 'opus' });
    expect(cfg.agents.engineer.model).toBe('gpt-5-codex');
    expect(cfg.providers.ollama).toMatchObject({ host: 'http://gpu-box:11434' });
    expect(cfg.agents.validator.model).toBe('qwen3:32b');
  });

  it('anthropic-only: every role on the Anthropic API, loadable with only ANTHROPIC_API_KEY set', () => {
    const cfg = load('anthropic-only', { ANTHROPIC_API_KEY: 'sk-ant-fake' });
    expect(Object.keys(cfg.providers)).toEqual(['anthropic']);
    expect(new Set(Object.values(cfg.agents).map((a) => a.provider))).toEqual(new Set(['anthropic']));
    expect(cfg.providers.anthropic).toMatchObject({ api_key_env: 'ANTHROPIC_API_KEY', rate_limit: { max: 50, duration_ms: 60000 }, concurrency: 2 });
    expect(cfg.agents.critic.model).toBe('claude-opus-5-5');
    expect(cfg.agents.proposer.model).toBe('claude-sonnet-5-5');
    const pinned = load('anthropic-only', { ANTHROPIC_API_KEY: 'sk-ant-fake', ANTHROPIC_MODEL: 'claude-opus-4-1', ANTHROPIC_CRITIC_MODEL: 'claude-haiku-4-5' });
    expect([pinned.agents.engineer.model, pinned.agents.validator.model]).toEqual(['claude-opus-4-1', 'claude-haiku-4-5']);
    expect(createProvider('anthropic', cfg.providers.anthropic, { env: { ANTHROPIC_API_KEY: 'sk-ant-fake' } }).type).toBe('anthropic');
  });

  it('anthropic-only: without the key, config load names the variable before any call is made', () => {
    expect(() => load('anthropic-only', {})).toThrow(ProjectConfigError);
    expect(() => load('anthropic-only', {})).toThrow(/ANTHROPIC_API_KEY, which is not set/);
  });
});
