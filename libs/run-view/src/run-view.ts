import type {
  AcceptanceCriterion,
  JudgeRole,
  JudgeVerdict,
  ModeratorSynthesis,
  PanelCompletion,
  PanelQuality,
  RunEventPayload,
} from '@roundtable/contracts';

/**
 * What a person watching a run sees, folded from its event envelopes and nothing else
 * (fold-run-event.ts). The CLI's live renderer and the web workbench both hold one, so the
 * terminal and the browser cannot disagree. Plain data: JSON-serialisable, compared whole by
 * the convergence tests, never mutated (each fold returns new objects for what changed, so a
 * React component can compare by reference).
 */
export interface RunView {
  runId: string | null;
  /** The sequence gate: an envelope at or below this is a duplicate or out of order, a no-op. */
  lastSequence: number;
  project: string | null;
  workflow: string | null;
  status: RunViewStatus;
  stage: string | null;
  /** Each stage the run entered, in order (a resumed run enters some twice). */
  stages: StageEntry[];
  /** Every agent call in the order it was queued; a retried call is a new entry (a new call_id). */
  calls: CallView[];
  /** Tallied from the call events: the API's usage (GET /v1/runs/:id) is the authority at the end. */
  usage: EventUsage;
  /**
   * The numeric caps in force at this point of the log: run_created's, raised by each run_resumed and
   * appeal_started that names caps. null when run_created carried none (a log older than its `caps`).
   */
  caps: Record<string, number> | null;
  workspace: string | null;
  /** created_at of run_started (before it: of the first envelope folded), and of the latest envelope. */
  startedAt: string | null;
  lastEventAt: string | null;
  verdict: string | null;
  confidence: number | null;
  /** Why the run failed, was cancelled or halted last. */
  endReason: string | null;
  halts: { reason: string; at: string; sequence: number }[];
  resumes: (RunEventPayload<'run_resumed'> & { sequence: number })[];
  openQuestions: RunEventPayload<'open_question_raised'>[];
  notices: RunNotice[];
  build: BuildView;
  /** Gates, decisions, answers and the merge: people in the loop, for any workflow. */
  people: PeopleView;
  /** null until the run is known to be a panel (run_created says so, or a panel event arrives). */
  panel: PanelView | null;
  /** An experiment's method and decision (issue 24); null until an experiment event arrives. */
  experiment: ExperimentView | null;
}

/** What an experiment run's page shows beyond any run's: the method's command and what it measured, and the decision code made. */
export interface ExperimentView {
  method: { opId: string; command: string; metricNames: string[]; metrics: Record<string, number> | null; exitCode: number | null; error: string | null; sequence: number } | null;
  decision: (RunEventPayload<'experiment_decided'> & { sequence: number }) | null;
}

export type RunViewStatus = 'unknown' | 'queued' | 'running' | 'awaiting_approval' | 'done' | 'halted' | 'needs_input' | 'cancelled' | 'failed';

export interface PeopleView {
  /** The gate the run waits at now, and what the approver looks at; null when it waits at none. */
  gate: { name: string; subject: Record<string, unknown>; sequence: number } | null;
  /** Every approval or refusal, in order. */
  decisions: {
    gate: string;
    decision: 'approve' | 'reject';
    approver: string;
    note: string | null;
    edits: RunEventPayload<'approval_given'>['edits'] | null;
    sequence: number;
  }[];
  answers: { questionId: string; answeredBy: string; answer: string; sequence: number }[];
  /** The merge of the run branch: done (merged) or refused with the reason; null while none was tried. */
  merge: {
    merged: boolean;
    into: string | null;
    strategy: string | null;
    commit: string | null;
    reason: string | null;
    code: string | null;
    sequence: number;
  } | null;
}

export interface StageEntry {
  stage: string;
  from: string | null;
  reason: string | null;
  at: string;
  sequence: number;
}

export type CallState = 'queued' | 'completed' | 'failed';

export interface CallView {
  callId: string;
  stage: string;
  role: string;
  provider: string;
  model: string;
  attempt: number;
  label: string | null;
  state: CallState;
  /** Whether the reply passed its schema (after any repair); null while queued or when it failed. */
  valid: boolean | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  latencyMs: number | null;
  gist: string | null;
  error: string | null;
  errorCode: string | null;
  queuedAt: string;
  finishedAt: string | null;
  /** A fork's copy of the original run's call of this id: shown, not counted in this run's usage. */
  copiedFrom?: string;
}

export interface EventUsage {
  /** Calls that ended (completed or failed): what the budget counts. */
  calls: number;
  failedCalls: number;
  tokens: number;
  /** null: no ended call had a known price (never a guessed 0). */
  costUsd: number | null;
  /** Completed calls without a price: costUsd leaves them out. */
  unpricedCalls: number;
}

/** What the run page shows as a warning line: each kind keeps its own payload. */
export type RunNotice =
  | { kind: 'budget_warning'; sequence: number; payload: RunEventPayload<'budget_warning'> }
  | { kind: 'provider_fallback'; sequence: number; payload: RunEventPayload<'provider_fallback'> }
  | { kind: 'provider_unserved'; sequence: number; payload: RunEventPayload<'provider_unserved'> }
  | { kind: 'files_rejected'; sequence: number; payload: RunEventPayload<'files_rejected'> }
  | { kind: 'panel_warning'; sequence: number; payload: RunEventPayload<'panel_warning'> };

/** The build workflow's records as its events announce them (bodies are on GET /v1/runs/:id/records). */
export interface BuildView {
  proposals: RunEventPayload<'proposal_recorded'>[];
  critiques: RunEventPayload<'critique_recorded'>[];
  criteria: AcceptanceCriterion[] | null;
  implementations: RunEventPayload<'implementation_recorded'>[];
  fileRequests: RunEventPayload<'files_requested'>[];
  fileReads: RunEventPayload<'files_read'>[];
  /** An agent-mode engineer's tool turns on an API provider, in order: what each turn called. */
  toolTurns: RunEventPayload<'engineer_tools_ran'>[];
  tests: TestRunView[];
  reviews: RunEventPayload<'review_recorded'>[];
  synthesis: RunEventPayload<'synthesis_recorded'> | null;
}

export interface TestRunView {
  implementation: string;
  command: string;
  /** null while the tests run. */
  result: RunEventPayload<'tests_completed'> | null;
}

/** stopped: the run halted or was cancelled before this judge answered. */
export type JudgeState = 'waiting' | 'dispatched' | 'completed' | 'failed' | 'stopped';

export interface JudgeCard {
  judge: JudgeRole;
  state: JudgeState;
  verdict: JudgeVerdict | null;
  /** The roast's score, then the re-vote's, then an appeal's: the latest. */
  score: number | null;
  revote: { previous: number; score: number; delta: number; reason: string | null; capped: boolean } | null;
  /** Weak in the panel's quality check (generic evidence, repeated concerns). */
  weak: boolean;
  genericRate: number | null;
}

export interface DebateTurn {
  speaker: JudgeRole;
  round: number;
  message: string;
  label: string | null;
  respondsTo: string[];
  /** Of the envelope that opened the turn (its first token, or its message). */
  sequence: number;
  /** True while debate_token_delta streams it; the published message freezes it. */
  streaming: boolean;
}

export interface AppealView {
  judges: JudgeRole[];
  /** Scores before the appeal, as appeal_started gave them. */
  before: Partial<Record<JudgeRole, number>>;
  caps: Record<string, number> | null;
  after: Partial<Record<JudgeRole, number>> | null;
  changeReasons: Partial<Record<JudgeRole, string>>;
  sequence: number;
}

export interface PanelView {
  /** In JUDGE_ORDER, always all five. */
  judges: JudgeCard[];
  /** Each judges_dispatched, in order (round 0 first; a retry adds one). */
  dispatches: RunEventPayload<'judges_dispatched'>[];
  roast: { scores: Partial<Record<JudgeRole, number>>; quality: PanelQuality | null } | null;
  retries: RunEventPayload<'panel_retry'>[];
  /** The transcript in order; a turn still streaming is its last entry. */
  debate: DebateTurn[];
  revoteBaseline: Partial<Record<JudgeRole, number>> | null;
  moderator: ModeratorSynthesis | null;
  metrics: RunEventPayload<'run_metrics'> | null;
  completion: PanelCompletion | null;
  appeals: AppealView[];
}
