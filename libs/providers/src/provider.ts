/**
 * What every adapter implements. Adapters know nothing of roles' meaning, prompts, budgets
 * or the store: they send messages and return what came back, with usage.
 */
import type { NativeTurn, ToolCall, ToolSpec } from '@roundtable/contracts';

export type { NativeTurn, ToolCall, ToolSpec };

/**
 * One message of the conversation. In a tool loop (`ProviderRequest.tools`) an assistant
 * message may carry the tools it called (`toolCalls`, its content then possibly empty), and
 * each tool's result comes back as a `tool` message naming the call it answers.
 */
export interface ProviderMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** assistant only: the tools it called, in order. */
  toolCalls?: ToolCall[];
  /** tool only: the id of the call this result answers (ToolCall.id). */
  toolCallId?: string;
  /** tool only: the called tool's name (Gemini's functionResponse and Ollama need it). */
  toolName?: string;
  /** assistant only: the turn as its provider returned it (Completion.native), sent back as it came by the adapter of that type. */
  native?: NativeTurn;
}

export type Effort = 'low' | 'medium' | 'high';

export interface ProviderRequest {
  messages: ProviderMessage[];
  model: string;
  /** Name and JSON schema of the reply the caller will validate against. */
  schemaName: string;
  jsonSchema: Record<string, unknown>;
  maxTokens: number;
  temperature: number;
  timeoutMs: number;
  /** CLI adapters only: agentic turns allowed (grok needs more than one); each CLI has its own default. */
  maxTurns?: number;
  /** CLI adapters only: reasoning effort (grok --reasoning-effort, codex model_reasoning_effort). */
  effort?: Effort;
  /**
   * CLI adapters only (claude, codex, grok): agent mode. The CLI runs inside this directory (a
   * run's git worktree) with its own tools on and writes confined to it, instead of answering
   * from an empty scratch directory with tools off.
   */
  workdir?: string;
  /**
   * Told each piece of the reply's text as it arrives. An adapter whose API streams (Anthropic,
   * OpenAI-compatible, Gemini, Ollama) asks for a stream only when this is given, and its
   * Completion is the one the non-streaming path returns (same text, usage, stop reason and
   * error classification): the pieces are a preview, the Completion stays the truth. Adapters
   * that cannot stream (CLIs, replay) ignore it. Never throws into the adapter: a failing
   * listener must not fail the call (see safeDelta).
   */
  onDelta?: (text: string) => void;
  /**
   * API adapters only (anthropic, openai_compat, gemini, ollama): a tool loop's turn. The tools
   * are offered with the provider's native tool calling (the model chooses: tool choice auto),
   * no structured-output format is sent (jsonSchema is then unused), and the adapter does not
   * stream (onDelta is ignored). The Completion's `toolCalls` holds what the model called.
   */
  tools?: ToolSpec[];
  /** Only the replay adapter reads these: which recorded reply to play. */
  role: string;
  ordinal: number;
}

/**
 * Token counts. `inputTokens` counts every prompt token, including those served from a cache;
 * `cachedInputTokens` is the cached share of it (so pricing never counts a token twice).
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

export interface Completion {
  /** The raw model text (or the serialized JSON when the provider returned structured output). */
  text: string;
  /** Provider-side JSON when there was one; the worker re-validates it. */
  parsed: unknown | null;
  usage: Usage;
  provider: string;
  model: string;
  latencyMs: number;
  requestId: string | null;
  stopReason: string | null;
  /** The provider's own cost estimate (CLIs report one), else null. */
  reportedCostUsd: number | null;
  raw: unknown;
  /** CLI adapters: the exact command line that ran (binary first), for the call row. */
  argv?: string[];
  /** How the call is paid: a subscription login (CLIs) or per-token API billing. Absent when not billed (local, replay). */
  billing?: 'subscription' | 'api';
  /** A tool loop's turn (`ProviderRequest.tools`): the tools the model called, in order; empty when it called none. */
  toolCalls?: ToolCall[];
  /** A tool loop's turn: the assistant turn in the provider's own shape, where the provider needs it back (thinking, signatures). */
  native?: NativeTurn;
}

export interface Provider {
  readonly name: string;
  readonly type: string;
  run(req: ProviderRequest): Promise<Completion>;
}

export type ProviderErrorCode =
  | 'PROVIDER_ERROR'
  | 'REPLAY_GUARD'
  | 'REPLAY_EXHAUSTED'
  | 'CASSETTE_INVALID'
  | 'USAGE_LIMIT'
  | 'AUTH'
  | 'TIMEOUT'
  | 'RATE_LIMITED'
  | 'SERVER_ERROR'
  | 'NETWORK'
  | 'NOT_FOUND'
  | 'BAD_REQUEST'
  | 'CLI_FAILED'
  | 'UNSUPPORTED_PROVIDER'
  /** The operator policy refuses this provider entry or this CLI's user: never sent, never retried. */
  | 'POLICY_REFUSED'
  /** The provider-worker stopped mid-call; set by the worker, never by an adapter. */
  | 'INTERRUPTED';

/**
 * A provider failure, in the provider's own words; `retryable` says whether a retry can help.
 * `retryAfterS` is the provider's own hint (a 429's `retry-after`), so a queue can back off by it.
 */
export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    readonly retryable = false,
    readonly httpStatus: number | null = null,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
