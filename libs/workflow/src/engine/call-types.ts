import type { AgentSchemaName, NativeTurn, ToolCall } from '@roundtable/contracts';

/**
 * The shapes every workflow's agent calls share: the command the orchestrator writes and
 * enqueues, the finished call it hands back, and the usage the budget is checked against.
 * A workflow narrows only the role and stage vocabularies (`R`, `G`).
 */

/**
 * One message of a call's prompt, stored on its row as sent. A tool loop's turn (an agent-mode
 * engineer on an API provider) replays the loop so far: assistant messages with the tools they
 * called, and a `tool` message with each result (libs/providers' ProviderMessage, the same fields).
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  toolName?: string;
  native?: NativeTurn;
}

/** Usage of one provider, or the run as a whole. */
export interface UsageTotals {
  calls: number;
  tokens: number;
  costUsd: number;
}

export interface UsageSnapshot {
  /** Recorded usage of finished calls (every attempt counts). */
  used: UsageTotals;
  usedByProvider: Record<string, UsageTotals>;
  /** Calls queued or running: counted against caps so parallel calls cannot overshoot. */
  reserved: UsageTotals;
  reservedByProvider: Record<string, UsageTotals>;
  /** Wall-clock seconds since the run started. */
  elapsedSeconds: number;
  /**
   * Finished calls no price was known for (their cost is not in `used.costUsd`): a prompt says
   * "cost unknown" rather than a $0.00 that reads as free. Absent = none known.
   */
  unpricedCalls?: number;
  /**
   * The operator's caps across runs that hold this run (a team's, a project's: issue 26), with
   * what every run of each scope has used today and ever, the reservations of calls in flight in
   * all of them included. Read with the scope's lock at every step; absent or empty: no such cap.
   */
  shared?: SharedUsage[];
}

/** What a team's or a project's caps count, over every run of it (the policy's budgets.<scope>.<name>). */
export interface ScopeCaps {
  max_calls_per_day?: number;
  max_usd_per_day?: number;
  max_usd_total?: number;
}

/** One scope's figures: finished calls plus reservations of calls in flight, in every run of the scope. */
export interface ScopeFigures {
  callsToday: number;
  usdToday: number;
  usdTotal: number;
}

export interface SharedUsage {
  /** The policy path of its caps: `teams.alpha`, `projects.dd-demo`; a refusal names it. */
  scope: string;
  /** How a person says it: `team alpha`, `project dd-demo`. */
  label: string;
  caps: ScopeCaps;
  used: ScopeFigures;
}

/** An earlier try of a call that failed transiently (its own row). */
/** The usage of a run that has made no call yet. */
export function emptyUsage(): UsageSnapshot {
  return {
    used: { calls: 0, tokens: 0, costUsd: 0 },
    usedByProvider: {},
    reserved: { calls: 0, tokens: 0, costUsd: 0 },
    reservedByProvider: {},
    elapsedSeconds: 0,
  };
}

export interface PriorAttempt {
  id: string;
  error: string | null;
  errorCode: string | null;
}

export interface CallUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  latencyMs: number | null;
}

/** A finished LLM request, as the provider-worker recorded it (the last try when it was retried). */
export interface FinishedCallOf<R extends string, G extends string> {
  id: string;
  role: R;
  stage: G;
  label: string | null;
  /** 2 = the schema repair call. Transient retries do not change it: they are counted by `retry`. */
  attempt: number;
  /** Which try of its call this is: 0 (or absent) = the first, n = the engine's n-th transient retry. */
  retry?: number;
  /**
   * Tries before this one that the engine has not seen, oldest first (each its own row). Empty
   * since retries are the engine's (each try reports itself); kept for stored replies.
   */
  priorAttempts?: PriorAttempt[];
  /** The provider-worker's verdict on a failed try: worth asking again (network, 5xx, 429, timeout, interrupted). */
  retryable?: boolean;
  /** How long the provider asked to be left alone (a 429's retry-after), in ms; null/absent = no hint. */
  retryAfterMs?: number | null;
  provider: string;
  model: string;
  status: 'completed' | 'failed';
  /** Did `parsed` validate against `schemaName`? null when the call failed before a reply. */
  valid: boolean | null;
  parsed: unknown;
  responseText: string | null;
  error: string | null;
  /** e.g. SCHEMA_INVALID, REPLAY_GUARD, PROVIDER_ERROR, USAGE_LIMIT, TIMEOUT */
  errorCode: string | null;
  schemaName: AgentSchemaName | null;
  messages: ChatMessage[];
  /** What the provider reported, for the agent_call_completed/failed event; null = unknown. */
  usage?: CallUsage;
  /** A fork's copy of this call of the original run (ForkOrigin): its usage was billed there, not here. Absent: asked of a provider. */
  copiedFrom?: string;
}

export interface AgentCallCommandOf<R extends string, G extends string> {
  kind: 'agent_call';
  callId: string;
  role: R;
  stage: G;
  label: string; // the artifact label the reply will become (P2, C1, V3 …)
  provider: string;
  model: string;
  schemaName: AgentSchemaName;
  messages: ChatMessage[];
  contextRefs: string[]; // labels of the rows used to build the prompt
  maxTokens: number;
  temperature: number;
  timeoutMs: number;
  attempt: number; // 2 = the schema repair call
  repairOf: string | null;
  /** A transient retry: which one (1, 2 …); absent on a first try. */
  retry?: number;
  /** The failed try this one retries. */
  retryOf?: string;
  /** Enqueue this long after the step commits (the retry's backoff); absent = at once. */
  delayMs?: number;
  /** Estimated prompt tokens (about four characters a token). */
  estimatedTokens: number;
  /**
   * The worst case held against the budget until the call settles (budget_reservations.tokens):
   * the prompt estimate plus the call's max output tokens.
   */
  reservedTokens: number;
  /**
   * That worst case at the model's table price (budget_reservations.cost_usd); 0 when the step
   * was given no price for the model (an unpriced call reserves no USD).
   */
  reservedCostUsd: number;
}

/** A model's table price, per million tokens. */
export interface ModelPrice {
  inputPerMtok: number;
  outputPerMtok: number;
}

/** The price lookup a step may be given (the orchestrator's pricing file); null = unpriced. */
export type PriceLookup = (model: string) => ModelPrice | null;
