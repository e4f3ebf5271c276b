import type { AgentConfig, AgentSchemaName, BudgetConfig } from '@roundtable/contracts';
import type { AgentCallCommandOf, ChatMessage, FinishedCallOf, UsageSnapshot } from './call-types';

/**
 * What a workflow supplies to the engine, and nothing more: its roles (the agent config of
 * each), its closing role (the synthesizer, the moderator …), the reply schema of each kind
 * of call, what to do with an artifact, what giving up means, and its own stage rules. The
 * engine owns the call lifecycle: the ledger, replies, repair, fallback, halting and closing.
 */

/** What the engine reads and writes of any workflow's state. */
export interface EngineState<G extends string> {
  runId: string;
  stage: G;
  haltReason: string | null;
  usage: UsageSnapshot;
  counters: Record<string, number>;
  config: { budget: BudgetConfig };
  /**
   * Providers that failed USAGE_LIMIT, AUTH or NOT_FOUND in this run (name → code): the close
   * after a halt never asks them again. Optional: a state stored before it existed has none.
   */
  unusableProviders?: Record<string, string>;
}

/** One call a workflow wants to make, before the budget has had its say. */
export interface CallSpec<R extends string, G extends string, K extends string = string> {
  role: R;
  /** What the call is for: decides the reply schema and what the reply becomes. */
  kind: K;
  stage: G;
  label: string;
  /** Counter bumped once the call is really queued (a call refused by the budget uses no label). */
  labelFamily: string | null;
  messages: ChatMessage[];
  contextRefs: string[];
  attempt: number;
  repairOf: string | null;
  provider: string;
  model: string;
  schemaName: AgentSchemaName;
  /** A transient retry of `retry.of` (its n-th), enqueued `retry.delayMs` after the step. */
  retry?: { n: number; of: string; delayMs: number };
}

/** The call a reply answers, as the workflow remembers it. */
export interface AwaitedCall<K extends string = string> {
  /** The call id the run is waiting for (a retried call answers through one of its later tries). */
  callId: string;
  label: string;
  kind: K;
}

export interface WorkflowDefinition<S extends EngineState<G>, R extends string, G extends string, K extends string, St> {
  // ---- roles and the close

  /** The agent config (provider, model, limits, fallback) a role's calls use. */
  agentOf(config: S['config'], role: R): AgentConfig;
  /** The role that closes a run, and the words the close is told in. */
  closing: {
    role: R;
    /** The stage its call runs in after a halt. */
    stage: G;
    /** "synthesizer", "moderator": who gets exactly one call. */
    noun: string;
    /** "report", "synthesis": what no model wrote when it failed. */
    product: string;
  };
  /** The stage a halted run stands in. */
  haltedStage: G;
  /** The closing role's fresh call. */
  closingSpec(step: St): CallSpec<R, G, K>;
  /** Entering the closing stage after a halt (a workflow that clocks its phases starts one). */
  onClosingStage(step: St): void;
  /** The close without a model: written from the records alone. */
  factOnly(step: St, why: string): void;
  /**
   * Why the closing role would have nothing to work on, or null: then the close is fact-only
   * without a call (an experiment's interpreter with no metrics yet). Absent: always something.
   */
  nothingToClose?(step: St): string | null;

  // ---- calls in flight

  /** The call this reply answers, or null: a stale, duplicate or late reply changes nothing. */
  awaited(step: St, call: FinishedCallOf<R, G>): AwaitedCall<K> | null;
  /** Bookkeeping once a call is queued (a workflow that runs calls in parallel notes it as pending). */
  onQueued(step: St, spec: CallSpec<R, G, K>, command: AgentCallCommandOf<R, G>): void;
  /** Bookkeeping once a reply has landed, before it is acted on. */
  onLanded(step: St, call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>): void;
  /** Calls still in flight: the close waits for them to land. */
  inFlight(step: St): number;

  // ---- replies: what a reply must be, and what it does

  /** The schema a reply to this call must match (the reply schema of its kind). */
  replySchema(call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>): AgentSchemaName;
  /** What the schema alone cannot know of a parsed reply (who is speaking, which round …), or null. */
  contextIssue?(step: St, call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>, parsed: unknown): string | null;
  /** One line for agent_call_completed: what the reply says. */
  gist(step: St, call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>, parsed: unknown): string;
  /** What a valid reply does: the artifact it becomes and the stage rule that follows. */
  onArtifact(step: St, call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>, parsed: unknown): void;

  // ---- giving up (after the engine's one repair and the role's fallback)

  /** A failure the workflow handles itself before the engine's repair, fallback and give-up (true = handled). */
  ownFailure?(step: St, call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>, failure: { error: string; code: string | null }): boolean;
  /**
   * What giving up on a failed call means, when it is not the closing role's and not yet a
   * halt: true = handled by the workflow (the run goes on); false = the run halts.
   */
  giveUp(step: St, call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>, why: string): boolean;
  /** The halt reason when a call is given up on, in the workflow's words (`schema`: it failed its schema twice). */
  giveUpReason(call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>, failure: { error: string; code: string | null }, schema: boolean): string;
  /** A failed reply of another role after the halt (a call that was in flight when it came). */
  afterHaltFailure(step: St, call: FinishedCallOf<R, G>, awaited: AwaitedCall<K>, why: string): void;
}
