import type {
  BuildRole,
  Critique,
  ExperimentRunConfig,
  Implementation,
  NewRunEvent,
  ProjectConfig,
  Proposal,
  Review,
  RunStatus,
  Stage,
  Synthesis,
  TestResult,
  NativeTurn,
  ToolCall,
  ToolOpChanges,
  ToolOpRequest,
  ToolResult,
} from '@roundtable/contracts';

import type { AgentCallCommandOf, FinishedCallOf, PriceLookup, UsageSnapshot } from '../engine/call-types';
import type { EngineEvent } from '../engine/engine-events';
import type { GateDecision, OpenGate } from '../engine/gates';

export type { ChatMessage, UsageTotals, UsageSnapshot, PriorAttempt, CallUsage, ModelPrice, PriceLookup } from '../engine/call-types';

/**
 * The contract between the orchestrator (I/O) and the build workflow (pure).
 * The orchestrator loads a BuildRunState from Postgres, calls decide(state, event, ctx),
 * and writes what comes back in one transaction. Nothing here touches a clock, a disk or a
 * network: `ctx.now` and `ctx.templates` come in from outside.
 */

export interface AcceptanceCriterion {
  id: string; // AC1, AC2 …
  text: string;
}

export interface ProposalRecord {
  id: string;
  label: string; // P1, P2 …
  callId: string;
  round: number;
  revisionOf: string | null; // label of the proposal it revises
  status: 'proposed' | 'criticized' | 'superseded' | 'accepted' | 'rejected';
  body: Proposal;
}

export interface CritiqueRecord {
  id: string;
  label: string; // C1 … for proposals, R1 … for reviews of implementations
  callId: string;
  targetKind: 'proposal' | 'implementation';
  targetLabel: string;
  verdict: Critique['verdict'];
  body: Critique | Review;
}

export interface ImplementationRecord {
  id: string;
  label: string; // I1, then I1f1, I1f2 for fix rounds
  callId: string;
  /** The proposal it implements; null in a solo run (pipeline: solo), which works from the objective and requirements. */
  proposalLabel: string | null;
  fixRound: number;
  status: 'pending' | 'applied' | 'rejected';
  applyError: string | null;
  body: Implementation;
  /** The run branch once this implementation was applied; absent when the workspace has no git. */
  diff?: ImplementationDiff;
}

/** Lines added and deleted in one file; null counts for a binary file. */
export interface DiffStatEntry {
  path: string;
  added: number | null;
  deleted: number | null;
}

/**
 * What the test-runner recorded when it committed an implementation on the run branch
 * (`roundtable/<runId>`). The diff is cumulative: every round so far against the base commit.
 */
export interface ImplementationDiff {
  /** A worktree of the project's repository, a copy of a directory, or an empty (greenfield) workspace. */
  source: 'worktree' | 'copy' | 'empty';
  branch: string;
  baseCommit: string;
  commit: string;
  /** This round's own changes. */
  roundDiffstat: DiffStatEntry[];
  /** Every round so far, against baseCommit. */
  diffstat: DiffStatEntry[];
  /** The stored diff (artifacts row). */
  artifactId: string;
  /** The cumulative diff, or its beginning when `truncated`. */
  text: string;
  truncated: boolean;
}

export interface TestRunRecord {
  id: string;
  label: string; // T1, T2 …
  implementationLabel: string;
  result: TestResult;
}

/** One file the test-runner read for a role that asked (content null when it could not be read). */
export interface ReadFile {
  path: string;
  content: string | null;
  bytes: number | null;
  truncated: boolean;
  error: string | null;
}

/**
 * Reading before writing: a role's request to read files before giving answer `label`
 * (a workspace_ops row of kind `read`). `files` is null until the test-runner has read them.
 */
export interface FileReadRecord {
  opId: string;
  label: string;
  role: BuildRole;
  /** The call whose reply was the request. */
  callId: string;
  paths: string[];
  reason: string | null;
  /** Paths past the per-request limit: not read, and the next prompt says so. */
  refused: string[];
  files: ReadFile[] | null;
}

/**
 * One turn of an agent-mode engineer's tool loop on an API provider (tool-loop.ts): the call,
 * the tools it called and, once the test-runner ran them (a workspace_ops row of kind `tool`),
 * their results. The turns of implementation `label`, in order, are the conversation the
 * next turn's prompt replays.
 */
export interface ToolTurnRecord {
  label: string;
  turn: number;
  callId: string;
  toolCalls: ToolCall[];
  text: string;
  /** The turn in its provider's own shape, sent back to that provider type (thinking, signatures). */
  native?: NativeTurn;
  /** The tool op that runs the calls; null for a turn that called no tool. */
  opId: string | null;
  results: ToolResult[] | null;
}

export interface SynthesisRecord {
  id: string;
  label: string;
  callId: string | null; // null: the fact-only report written without a model
  partial: boolean;
  body: Synthesis | null;
}

/** A question raised by a role; its id is Q<n>, its place in the run's list (engine/answers.ts). */
export interface OpenQuestion {
  role: BuildRole;
  question: string;
  /** A person's answer, once given (who: the api token's name). */
  answer?: { text: string; by: string };
}

/** What the test-runner answered to a merge op (MergeOpResult): merged, or refused with the reason and the original untouched. */
export interface MergeOutcome {
  merged: boolean;
  into: string;
  strategy: string;
  commit: string | null;
  previous: string | null;
  reason: string | null;
  code: string | null;
}

export interface BuildRunState {
  runId: string;
  status: RunStatus;
  stage: Stage;
  round: number; // critique → revise cycles used; REVISE allowed while round < budget.max_rounds
  fixRound: number;
  criteria: AcceptanceCriterion[] | null; // locked when a critique ACCEPTs
  unresolved: boolean; // implementing with open criticisms at the round limit
  haltReason: string | null;
  config: ProjectConfig;
  workspace: { path: string | null; tree: string[] };
  proposals: ProposalRecord[];
  critiques: CritiqueRecord[]; // both proposal critiques and implementation reviews, oldest first
  implementations: ImplementationRecord[];
  testRuns: TestRunRecord[];
  synthesis: SynthesisRecord | null;
  /**
   * Open questions raised so far (open_questions rows). Optional so a state built before this
   * field existed still type-checks; decide() appends to it and the report lists it.
   */
  openQuestions?: OpenQuestion[];
  /** Files the critic, engineer and validator asked to read, oldest first (optional like openQuestions). */
  fileReads?: FileReadRecord[];
  /** The turns of an agent-mode engineer's tool loops, oldest first (optional like openQuestions). */
  toolTurns?: ToolTurnRecord[];
  /** Providers that failed USAGE_LIMIT, AUTH or NOT_FOUND in this run (engine/closing.ts). */
  unusableProviders?: Record<string, string>;
  /** Every decision a person took at a gate, in order, with the criteria edit (optional like openQuestions). */
  approvals?: GateDecision[];
  /** What became of the merge of the run branch, once tried (optional like openQuestions). */
  merge?: MergeOutcome | null;
  /** The gate the run waits at while awaiting_approval (runs.gate); null or absent otherwise. */
  gate?: OpenGate | null;
  usage: UsageSnapshot;
  /** Last ordinal used per label family ('P', 'C', 'I', 'T', 'R', 'S', 'call', 'op'); drives ids. */
  counters: Record<string, number>;
}

/** A finished LLM request of a build run, as the provider-worker recorded it (the last try when it was retried). */
export type FinishedCall = FinishedCallOf<BuildRole, Stage>;

export type BuildEvent =
  | Exclude<EngineEvent<FinishedCall, Stage>, { type: 'resume' }>
  | { type: 'workspace_prepared'; opId: string; path: string; tree: string[] }
  | { type: 'workspace_failed'; opId: string; error: string }
  /** `diff`: the commit the test-runner made of it on the run branch (absent when the workspace has no git). */
  | { type: 'files_applied'; opId: string; implementationLabel: string; tree: string[]; diffArtifactId?: string; diff?: ImplementationDiff }
  | { type: 'files_rejected'; opId: string; implementationLabel: string; error: string }
  /** The test-runner read the files a role asked for (a file it could not read carries its error). */
  | { type: 'files_read'; opId: string; files: ReadFile[] }
  /** The test-runner ran the tools a turn called (and, after finish, said what changed). */
  | { type: 'tools_ran'; opId: string; results: ToolResult[]; changes: ToolOpChanges | null }
  | { type: 'tests_finished'; opId: string; testRun: TestRunRecord }
  | { type: 'tests_failed_to_run'; opId: string; error: string }
  /** The test-runner's answer to the merge op. */
  | { type: 'merge_finished'; opId: string; outcome: MergeOutcome }
  /** The engine's resume (a halted, needs_input or failed build restarts), with the build's caps. */
  | { type: 'resume'; at: Stage; rerun: boolean; caps?: Partial<ResumeCaps> };

export interface ResumeCaps {
  max_calls: number;
  max_tokens: number;
  max_cost_usd: number;
  max_seconds: number;
  max_rounds: number;
  max_fix_rounds: number;
}

/** Rows the orchestrator inserts (ids are deterministic, so a replayed step inserts nothing new). */
export type DomainRecord =
  | { kind: 'proposal'; record: ProposalRecord }
  | { kind: 'proposal_status'; label: string; status: ProposalRecord['status'] }
  | { kind: 'critique'; record: CritiqueRecord }
  | { kind: 'implementation'; record: ImplementationRecord }
  | { kind: 'implementation_status'; label: string; status: ImplementationRecord['status']; applyError: string | null }
  | { kind: 'synthesis'; record: SynthesisRecord }
  | ({ kind: 'open_question' } & OpenQuestion)
  /** The answer to the open question at `index` (Q<index+1>) of the run. */
  | { kind: 'question_answer'; index: number; answer: string; answeredBy: string };

/** One agent call the orchestrator writes (agent_calls row, budget reservation) and enqueues. */
export type AgentCallCommand = AgentCallCommandOf<BuildRole, Stage>;

export type Command =
  | AgentCallCommand
  | { kind: 'workspace.prepare'; opId: string }
  | { kind: 'workspace.apply'; opId: string; implementationLabel: string }
  /** Read the files of a request (the record without its files yet), each capped at maxBytesPerFile. */
  | ({ kind: 'workspace.read'; maxBytesPerFile: number } & Omit<FileReadRecord, 'files'>)
  /** Offer the run branch as a bundle and a patch (a done run on a greenfield or copied workspace: nothing to merge into). */
  | { kind: 'workspace.export'; opId: string }
  /** Run the tools one turn of the engineer's tool loop called, in the worktree (ToolOpRequest). */
  | ({ kind: 'workspace.tool'; opId: string } & ToolOpRequest)
  /** Merge the run branch into the original repository (after the merge gate, or at autonomy 3). */
  | { kind: 'workspace.merge'; opId: string; into: string; strategy: 'ff' | 'merge' | 'squash'; message: string; approvedBy: string }
  | {
      kind: 'tests.run';
      opId: string;
      implementationLabel: string;
      /** The label the resulting test run gets (T1, T2 …), chosen here so labels stay deterministic. */
      testLabel: string;
      command: string;
      timeoutS: number;
    }
  /**
   * At autonomy 3, a critique's NEEDS_EXPERIMENT: an experiment run of its own (workflow
   * experiment, its ids derived from this run's and the question's) whose proposer drafts the
   * preregistration; its decision comes back as the answer to `questionId` (issue 24).
   */
  | { kind: 'experiment.draft'; opId: string; experimentId: string; childRunId: string; questionId: string; config: ExperimentRunConfig };

export interface Decision {
  from: Stage;
  to: Stage;
  reason: string;
  refs: string[];
}

export interface StepResult {
  /** The new scalar state (status, stage, round, fixRound, criteria, unresolved, haltReason, counters). */
  state: BuildRunState;
  decisions: Decision[];
  records: DomainRecord[];
  commands: Command[];
  events: NewRunEvent[];
  /** The run's synthesis verdict once known. */
  verdict: Synthesis['overall_verdict'] | null;
  confidence: number | null;
}

export interface StepContext {
  /** prompts/preamble.md and prompts/<role>.md, loaded once by the orchestrator. */
  templates: PromptTemplates;
  /**
   * The table price of a model (the orchestrator's pricing file): a priced call reserves its
   * worst case in USD. Absent, or null for a model: the call reserves no USD.
   */
  prices?: PriceLookup;
  /** Backoff before each transient retry (the orchestrator's PROVIDER_RETRY_DELAYS_MS); default DEFAULT_RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
}

/**
 * The build's templates: the preamble, one per role, and `trading_rules`, the trading domain's
 * rules section (prompts/experiment/trading_rules.md, shared with the experiment workflow).
 */
export type PromptTemplates = Record<'preamble' | BuildRole | 'trading_rules', string>;
