import type {
  ExperimentDecision,
  ExperimentInterpretation,
  ExperimentResult,
  ExperimentRole,
  ExperimentRunConfig,
  ExperimentStage,
  Interpretation,
  InterpretationReview,
  NewRunEvent,
  Preregistration,
  RunStatus,
} from '@roundtable/contracts';
import type { AnswerableQuestion } from '../engine/answers';
import type { AgentCallCommandOf, FinishedCallOf, PriceLookup, UsageSnapshot } from '../engine/call-types';
import type { EngineEvent } from '../engine/engine-events';
import type { GateDecision, OpenGate } from '../engine/gates';

/**
 * The contract between the orchestrator and the experiment workflow (issue 24), the twin of
 * panel-types.ts: the orchestrator loads an ExperimentRunState, calls decideExperimentRun(state,
 * event, ctx) and writes what comes back in one transaction.
 */

/** What an experiment's agent call is for: it decides the schema, the template and what the reply becomes. */
export type ExperimentCallKind = 'draft' | 'interpret' | 'review';

export interface ReplyRecord<B> {
  label: string;
  callId: string;
  body: B;
}

/** The one call in flight: an experiment asks one role at a time. */
export interface PendingExperimentCall {
  role: ExperimentRole;
  label: string;
  kind: ExperimentCallKind;
  callId: string;
}

export interface ExperimentRunState {
  runId: string;
  status: RunStatus;
  stage: ExperimentStage;
  config: ExperimentRunConfig;
  haltReason: string | null;
  usage: UsageSnapshot;
  counters: Record<string, number>;
  unusableProviders?: Record<string, string>;
  gate?: OpenGate | null;
  approvals?: GateDecision[];
  openQuestions?: AnswerableQuestion[];
  /** The preregistration the run holds to: the file's, or the draft a person approved. */
  preregistration: Preregistration | null;
  draft: ReplyRecord<Preregistration> | null;
  /** The method's command as an op in flight (at most one). */
  methodOp: string | null;
  result: ExperimentResult | null;
  interpretation: ReplyRecord<Interpretation> | null;
  review: ReplyRecord<InterpretationReview> | null;
  pending: PendingExperimentCall | null;
  /** The decision and what stands beside it, once decided. */
  outcome: ExperimentInterpretation | null;
}

/** What the method's command came to, as the test-runner reported it (the experiment op's result, or its failure). */
export type MethodOutcome =
  | { ok: true; result: ExperimentResult }
  | { ok: false; error: string };

export type ExperimentFinishedCall = FinishedCallOf<ExperimentRole, ExperimentStage>;

export type ExperimentEvent = EngineEvent<ExperimentFinishedCall, ExperimentStage> | { type: 'method_ran'; opId: string; outcome: MethodOutcome };

export type ExperimentAgentCallCommand = AgentCallCommandOf<ExperimentRole, ExperimentStage>;

/**
 * The method's command in the sandbox at the pinned commit: the op's request (hash, commit, repo)
 * is written from the experiments row itself, so the step says only which experiment and what to run.
 */
export interface MethodRunCommand {
  kind: 'experiment.run';
  opId: string;
  experimentId: string;
  command: string;
  metrics: string[];
  timeoutS: number;
}

/** A drafted experiment's decision, sent to the build whose critique asked for it: the answer to its open question. */
export interface ParentAnswerCommand {
  kind: 'run.answer';
  runId: string;
  questionId: string;
  answer: string;
  experimentId: string;
}

export type ExperimentCommand = ExperimentAgentCallCommand | MethodRunCommand | ParentAnswerCommand;

/** What the experiments row learns from a step (the orchestrator's experiment SQL writes each). */
export type ExperimentRecord =
  /** A person approved the draft: it is the preregistration now, hashed and locked. */
  | { kind: 'experiment_locked'; experimentId: string; preregistration: Preregistration; approver: string }
  | { kind: 'experiment_rejected'; experimentId: string }
  /** Stored only if the row still hashes to `result.prereg_hash` and has no result yet. */
  | { kind: 'experiment_result'; experimentId: string; result: ExperimentResult }
  | { kind: 'experiment_decided'; experimentId: string; decision: ExperimentDecision; interpretation: ExperimentInterpretation }
  /** The decision, logged to the evidence ledger of the idea whose recommended experiment this is. */
  | { kind: 'idea_evidence'; experimentId: string; ideaId: string; claim: string; source: string }
  /** A critic's disagreement, put to a person (open_questions, answerable like any run's). */
  | { kind: 'open_question'; role: ExperimentRole; question: string };

export interface ExperimentDecisionRow {
  from: ExperimentStage;
  to: ExperimentStage;
  reason: string;
  refs: string[];
}

export interface ExperimentStepResult {
  state: ExperimentRunState;
  decisions: ExperimentDecisionRow[];
  records: ExperimentRecord[];
  commands: ExperimentCommand[];
  events: NewRunEvent[];
  verdict: ExperimentDecision | null;
  confidence: number | null;
}

export type ExperimentTemplateName = 'preamble' | 'proposer' | 'interpreter' | 'critic' | 'trading_rules';
/** prompts/preamble.md and prompts/experiment/<name>.md, loaded once by the orchestrator. */
export type ExperimentPromptTemplates = Record<ExperimentTemplateName, string>;

export interface ExperimentStepContext {
  templates: ExperimentPromptTemplates;
  prices?: PriceLookup;
  retryDelaysMs?: readonly number[];
  /** The method's timeout when the preregistration gives none, and the most it may ask (the operator's). */
  methodTimeoutS: { default: number; max: number };
}
