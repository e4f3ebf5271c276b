import type { OperatorPolicy, ProviderConfig } from '@roundtable/contracts';
import { AnthropicProvider } from './api/anthropic.provider';
import { GeminiProvider } from './api/gemini.provider';
import { OllamaProvider } from './api/ollama.provider';
import { OpenAiCompatProvider } from './api/openai-compat.provider';
import { AgyCliProvider } from './cli/agy-cli.provider';
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
  /**
   * The operator's policy: where CLI binaries are (cli.binaries) and which user a CLI runs as
   * (cli.run_as, cli.allow_same_user, cli.home). Default: DEFAULT_OPERATOR_POLICY. Whether the
   * entry itself is allowed is the caller's check (providerPolicyIssues), before it builds one.
   */
  policy?: OperatorPolicy;
  /** The uid this process runs as (process.getuid()); a test names another to see the non-root refusal. */
  processUid?: number;
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
          return new ClaudeCliProvider(name, cfg, env, opts.policy, opts.processUid);
        case 'codex':
          return new CodexCliProvider(name, cfg, env, opts.policy, opts.processUid);
        case 'grok':
          return new GrokCliProvider(name, cfg, env, opts.policy, opts.processUid);
        case 'gemini':
          return new GeminiCliProvider(name, cfg, env, opts.policy, opts.processUid);
        case 'agy':
          return new AgyCliProvider(name, cfg, env, opts.policy, opts.processUid);
      }
  }
}
