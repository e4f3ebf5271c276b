import type {
  AgentSchemaName,
  DebateTurn,
  JudgeRole,
  JudgeVerdict,
  ModeratorSynthesis,
  NewRunEvent,
  PanelProjectConfig,
  PanelQuality,
  PanelRecommendation,
  PanelRole,
  PanelStage,
  PanelWarning,
  Revote,
  RunStatus,
} from '@roundtable/contracts';
import type { AgentCallCommandOf, CallUsage, FinishedCallOf, PriceLookup, UsageSnapshot } from '../engine/call-types';
import type { EngineEvent } from '../engine/engine-events';

/**
 * The contract between the orchestrator and the panel workflow (seed 003), the twin of
 * build-types.ts: the orchestrator loads a PanelRunState, calls decidePanel(state, event, ctx)
 * and writes what comes back in one transaction. Call commands, finished calls, usage and
 * events are the engine's (engine/call-types.ts); only the role and stage vocabularies differ.
 */

/** What a panel agent call is for; decides the schema, the template and what the reply becomes. */
export type PanelCallKind = 'verdict' | 'turn' | 'revote' | 'appeal' | 'moderator';

export const SCHEMA_BY_KIND: Readonly<Record<PanelCallKind, AgentSchemaName>> = {
  verdict: 'JudgeVerdict',
  turn: 'DebateTurn',
  revote: 'Revote',
  appeal: 'Revote',
  moderator: 'ModeratorSynthesis',
};

export interface JudgeVerdictRecord {
  id: string;
  label: string; // V1 … V5 for the roast, V6 … for retries
  callId: string;
  judge: JudgeRole;
  /** 0 = the first roast, 1 and 2 = the retries of weak judges. */
  attempt: number;
  body: JudgeVerdict;
}

export interface DebateTurnRecord {
  id: string;
  label: string; // D1, D2 … in speaking order
  callId: string;
  speaker: JudgeRole;
  round: number;
  body: DebateTurn;
}

export interface RevoteRecord {
  id: string;
  label: string; // RV1 … for the re-vote, AP1 … for an appeal
  callId: string;
  judge: JudgeRole;
  phase: 'revote' | 'appeal';
  previous: number;
  /** The score the judge asked for. */
  requested: number;
  /** The score that counts: `requested` capped at ±3 from `previous`. */
  score: number;
  capped: boolean;
  body: Revote;
}

export interface ModeratorRecord {
  id: string;
  label: string; // M1
  callId: string | null; // null: the fact-only close written without a model
  partial: boolean;
  body: ModeratorSynthesis | null;
}

/** A call this run is waiting for: at most one per role at a time (parallel across roles). */
export interface PendingCall {
  label: string;
  kind: PanelCallKind;
  callId: string;
}

export interface AppealState {
  evidence: string[];
  judges: JudgeRole[];
  status: 'running' | 'completed';
  /** The scores the appeal started from. */
  previous: Partial<Record<JudgeRole, number>>;
}

/** One finished call, for run_metrics' per-call breakdown. */
export interface PanelCallFact {
  callId: string;
  role: PanelRole;
  stage: PanelStage;
  label: string | null;
  provider: string;
  model: string;
  attempt: number;
  status: 'completed' | 'failed';
  usage: CallUsage | null;
}

export type PanelPhase = 'roast' | 'debate' | 'revote' | 'moderate';

export interface PanelRunState {
  runId: string;
  status: RunStatus;
  stage: PanelStage;
  config: PanelProjectConfig;
  haltReason: string | null;
  /** Retries of weak judges used so far (at most MAX_PANEL_RETRIES). */
  roastRetries: number;
  /** The judges dispatched in the current roast attempt (judge_verdict_completed counts against it). */
  roastBatch: JudgeRole[];
  /** Every verdict recorded, oldest first; a judge's current verdict is its latest. */
  verdicts: JudgeVerdictRecord[];
  /** The debate round being spoken (1-based); 0 before the debate. */
  debateRound: number;
  turns: DebateTurnRecord[];
  /** Scores when the re-vote started; null until then. */
  revoteBaseline: Partial<Record<JudgeRole, number>> | null;
  /** Re-vote and appeal re-scores, oldest first. */
  revotes: RevoteRecord[];
  moderator: ModeratorRecord | null;
  /** The latest panel assessment (after the last roast attempt). */
  quality: PanelQuality | null;
  /** A uniform panel finishes, flagged. */
  lowConfidence: boolean;
  warnings: PanelWarning[];
  appeal: AppealState | null;
  pending: Partial<Record<PanelRole, PendingCall>>;
  /** Providers that failed USAGE_LIMIT, AUTH or NOT_FOUND in this run (engine/closing.ts). */
  unusableProviders?: Record<string, string>;
  /** `usage.elapsedSeconds` when each phase started, and each finished phase's length. */
  phaseStartedAt: Partial<Record<PanelPhase, number>>;
  phaseSeconds: Partial<Record<PanelPhase, number>>;
  calls: PanelCallFact[];
  usage: UsageSnapshot;
  /** Last ordinal per label family ('V', 'D', 'RV', 'AP', 'M', 'call'); drives ids. */
  counters: Record<string, number>;
}

/** A finished LLM request of a panel run: the build's FinishedCall with panel roles and stages. */
export type PanelFinishedCall = FinishedCallOf<PanelRole, PanelStage>;

export type PanelEvent =
  | EngineEvent<PanelFinishedCall, PanelStage>
  /**
   * POST /v1/runs/:id/appeal on a done run: new evidence, re-scored by the named judges, once.
   * `caps` raises budget caps first (an appeal the budget refused may be asked again with them).
   */
  | { type: 'appeal'; evidence: string[]; judges: JudgeRole[]; caps?: Partial<Record<string, number>> };

/** The build's AgentCallCommand with panel roles and stages; the orchestrator writes both alike. */
export type PanelAgentCallCommand = AgentCallCommandOf<PanelRole, PanelStage>;

/** Rows the orchestrator inserts (ids are deterministic, so a replayed step inserts nothing new). */
export type PanelRecord =
  | { kind: 'judge_verdict'; record: JudgeVerdictRecord }
  | { kind: 'debate_turn'; record: DebateTurnRecord }
  | { kind: 'revote'; record: RevoteRecord }
  | { kind: 'moderator_synthesis'; record: ModeratorRecord }
  | { kind: 'panel_quality'; attempt: number; quality: PanelQuality }
  | { kind: 'panel_warning'; warning: PanelWarning };

export interface PanelDecision {
  from: PanelStage;
  to: PanelStage;
  reason: string;
  refs: string[];
}

export interface PanelStepResult {
  state: PanelRunState;
  decisions: PanelDecision[];
  records: PanelRecord[];
  commands: PanelAgentCallCommand[];
  events: NewRunEvent[];
  /** The moderator's recommendation once known (runs.verdict). */
  verdict: PanelRecommendation | null;
  confidence: number | null;
}

export type PanelTemplateName = 'preamble' | JudgeRole | 'debate' | 'revote' | 'moderator' | 'appeal';
/** prompts/preamble.md and prompts/panel/<name>.md, loaded once by the orchestrator. */
export type PanelPromptTemplates = Record<PanelTemplateName, string>;

export interface PanelStepContext {
  templates: PanelPromptTemplates;
  /** The table price of a model, as for the build (StepContext.prices): a priced call reserves its worst case in USD. */
  prices?: PriceLookup;
  /** As for the build (StepContext.retryDelaysMs). */
  retryDelaysMs?: readonly number[];
}

