import { OperatorPolicy, ProviderConfig } from '@roundtable/contracts';
import { AnthropicProvider } from './api/anthropic.provider';
import { GeminiProvider } from './api/gemini.provider';
import { OllamaProvider } from './api/ollama.provider';
import { OpenAiCompatProvider } from './api/openai-compat.provider';
import { AgyCliProvider } from './cli/agy-cli.provider';
import { ClaudeCliProvider } from './cli/claude-cli.provider';
import { CodexCliProvider } from './cli/codex-cli.provider';
import { GeminiCliProvider } from './cli/gemini-cli.provider';
import { GrokCliProvider } from './cli/grok-cli.provider';
import { createProvider } from './provider-registry';
import { ReplayProvider } from './replay/replay.provider';

describe('createProvider', () => {
  it.each([
    [{ type: 'replay', cassette: 'c.yaml', latency_ms: 0 }, ReplayProvider, 'replay'],
    [{ type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' }, AnthropicProvider, 'anthropic'],
    [{ type: 'openai_compat', api_key_env: 'XAI_API_KEY', base_url: 'https://api.x.ai/v1' }, OpenAiCompatProvider, 'openai_compat'],
    [{ type: 'gemini', api_key_env: 'GEMINI_API_KEY' }, GeminiProvider, 'gemini'],
    [{ type: 'ollama', host: 'http://localhost:11434' }, OllamaProvider, 'ollama'],
    [{ type: 'cli', cli: 'claude' }, ClaudeCliProvider, 'cli'],
    [{ type: 'cli', cli: 'codex' }, CodexCliProvider, 'cli'],
    [{ type: 'cli', cli: 'grok' }, GrokCliProvider, 'cli'],
    [{ type: 'cli', cli: 'gemini' }, GeminiCliProvider, 'cli'],
    [{ type: 'cli', cli: 'agy' }, AgyCliProvider, 'cli'],
  ] as const)('builds %j', (cfg, cls, type) => {
    const p = createProvider('p', cfg);
    expect(p).toBeInstanceOf(cls);
    expect(p).toMatchObject({ name: 'p', type });
  });

  it('resolves a CLI binary from the operator policy (cli.binaries), then ROUNDTABLE_<CLI>_BIN, then the CLI name', () => {
    const policy = OperatorPolicy.parse({ cli: { binaries: { grok: '/opt/grok' } } });
    expect((createProvider('p', { type: 'cli', cli: 'grok' }, { env: { ROUNDTABLE_GROK_BIN: '/x' }, policy }) as GrokCliProvider).binary()).toBe('/opt/grok');
    expect((createProvider('p', { type: 'cli', cli: 'grok' }, { env: { ROUNDTABLE_GROK_BIN: '/x/grok' } }) as GrokCliProvider).binary()).toBe('/x/grok');
    expect((createProvider('p', { type: 'cli', cli: 'codex' }, { env: {} }) as CodexCliProvider).binary()).toBe('codex');
    expect((createProvider('p', { type: 'cli', cli: 'agy' }, { env: { ROUNDTABLE_AGY_BIN: '/opt/agy/bin/agy' } }) as AgyCliProvider).binary()).toBe('/opt/agy/bin/agy');
    expect((createProvider('p', { type: 'cli', cli: 'agy' }, { env: {} }) as AgyCliProvider).binary()).toBe('agy');
  });

  it('has no binary of a project: the schema refuses `binary` on a cli entry, naming the operator policy', () => {
    const parsed = ProviderConfig.safeParse({ type: 'cli', cli: 'claude', binary: '/tmp/evil' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['binary'], message: expect.stringContaining('cli.binaries in ROUNDTABLE_POLICY') });
  });
});
