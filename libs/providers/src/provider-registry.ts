import type { ProviderConfig } from '@roundtable/contracts';
import { AnthropicProvider } from './api/anthropic.provider';
import { GeminiProvider } from './api/gemini.provider';
import { OllamaProvider } from './api/ollama.provider';
import { OpenAiCompatProvider } from './api/openai-compat.provider';
import { ClaudeCliProvider } from './cli/claude-cli.provider';
import { CodexCliProvider } from './cli/codex-cli.provider';
import { GeminiCliProvider } from './cli/gemini-cli.provider';
import { GrokCliProvider } from './cli/grok-cli.provider';
import type { Provider } from './provider';
import { ReplayProvider } from './replay/replay.provider';

export interface CreateProviderOptions {
  /**
   * Where API keys (named by api_key_env) and CLI binary overrides (ROUNDTABLE_<CLI>_BIN) are
   * read, at call time; also the base of a CLI child's environment. Defaults to process.env.
   */
  env?: NodeJS.ProcessEnv;
}

/** Builds the adapter for a provider entry of a project file. */
export function createProvider(name: string, cfg: ProviderConfig, opts: CreateProviderOptions = {}): Provider {
  const env = opts.env ?? process.env;
  switch (cfg.type) {
    case 'replay':
      return new ReplayProvider(name, cfg.cassette, cfg.latency_ms);
    case 'anthropic':
      return new AnthropicProvider(name, cfg, env);
    case 'openai_compat':
      return new OpenAiCompatProvider(name, cfg, env);
    case 'gemini':
      return new GeminiProvider(name, cfg, env);
    case 'ollama':
      return new OllamaProvider(name, cfg);
    case 'cli':
      switch (cfg.cli) {
        case 'claude':
          return new ClaudeCliProvider(name, cfg, env);
        case 'codex':
          return new CodexCliProvider(name, cfg, env);
        case 'grok':
          return new GrokCliProvider(name, cfg, env);
        case 'gemini':
          return new GeminiCliProvider(name, cfg, env);
      }
  }
}
