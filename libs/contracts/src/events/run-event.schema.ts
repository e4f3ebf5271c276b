import { z } from 'zod';
import { ExperimentDecision } from '../experiment/experiment-decision';
import { RunStatus } from '../run/run-vocabulary';
import { AcceptanceCriterion } from '../run/acceptance-criterion.schema';
import { JudgeVerdict } from '../panel/judge-verdict.schema';
import { ModeratorSynthesis } from '../panel/moderator-synthesis.schema';
import { PanelCompletion } from '../panel/panel-completion.schema';
import { PanelQuality, PanelWarningKind } from '../panel/panel-quality.schema';
import { JudgeRole, JudgeScore, RunStage } from '../panel/panel-vocabulary.schema';

/**
 * What every SSE data frame carries; `sequence` is per run, gap-free, and the SSE frame id. A
 * live-only event (LIVE_ONLY_EVENT_TYPES: debate_token_delta) is the exception: never stored,
 * it carries the sequence (and frame id) of the last stored event its stream sent, the one it
 * follows, and a reducer folds it without advancing past that sequence.
 */
export const RunEventEnvelope = z.object({
  type: z.string(),
  run_id: z.string(),
  sequence: z.number().int().positive(),
  payload: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type RunEventEnvelope = z.infer<typeof RunEventEnvelope>;

const CallFacts = {
  call_id: z.string(),
  stage: z.string(),
  role: z.string(),
  provider: z.string(),
  model: z.string(),
  attempt: z.number().int(),
  label: z.string().nullish(),
};

/**
 * The call's record hash (callRecordHash over its messages, reply, usage and cost as its row holds
 * them), added by the orchestrator as it records the outcome: the hash chain covers the call through
 * this event. Absent in logs written before the chain (issue 26).
 */
const RecordHash = z.string().optional();

/** A score per judge (a panel that halted early may lack some judges). */
const ScoreMap = z.partialRecord(JudgeRole, JudgeScore);

/** One agent call in a panel's run_metrics breakdown. */
const CallMetrics = z.object({
  call_id: z.string(),
  role: z.string(),
  stage: z.string(),
  label: z.string().nullish(),
  provider: z.string(),
  model: z.string(),
  attempt: z.number().int(),
  status: z.enum(['completed', 'failed']),
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cost_usd: z.number().nullish(),
  latency_ms: z.number().nullish(),
});

/** The catalogue of event types, snake_case, each with its payload schema. */
export const RUN_EVENT_PAYLOADS = {
  /**
   * `caps`: the budget's numeric caps as submitted (max_calls, max_tokens …), so a follower draws
   * the run against the caps in force at each point (a resume or an appeal raises some, and says
   * which). Absent in logs written before it was added (issue 22). `forked_from`: a fork (POST
   * /v1/runs/:id/fork) names the run and stage it starts again from.
   */
  run_created: z.object({
    project: z.string(),
    workflow: z.string(),
    caps: z.record(z.string(), z.number()).optional(),
    forked_from: z.object({ run_id: z.string(), stage: z.string() }).optional(),
  }),
  /**
   * At submission with `?queue_unserved=true`: a provider the run uses that no live
   * provider-worker serves (or whose workers all lack its key variable); its calls wait on
   * `agent.<provider>` until one starts. `start` says which worker group to start.
   */
  provider_unserved: z.object({ provider: z.string(), api_key_env: z.string().nullable(), reason: z.string(), start: z.string() }),
  run_started: z.object({ workspace: z.string().nullish() }),
  // Any workflow's stage: the build's (seed §8) or the panel's (ROAST, DEBATE …).
  stage_changed: z.object({ from: RunStage, to: RunStage, reason: z.string() }),
  agent_call_queued: z.object(CallFacts),
  agent_call_completed: z.object({
    ...CallFacts,
    valid: z.boolean(),
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    cost_usd: z.number().nullish(),
    latency_ms: z.number().nullish(),
    gist: z.string().nullish(),
    /** A fork's copy of the original run's call of this id: not this run's usage. */
    copied_from: z.string().nullish(),
    record_hash: RecordHash,
  }),
  agent_call_failed: z.object({ ...CallFacts, error: z.string(), error_code: z.string().nullish(), copied_from: z.string().nullish(), record_hash: RecordHash }),
  proposal_recorded: z.object({ label: z.string(), claim: z.string(), confidence: z.number(), revision_of: z.string().nullish() }),
  critique_recorded: z.object({ label: z.string(), target: z.string(), verdict: z.string(), problems: z.number().int() }),
  criteria_locked: z.object({ criteria: z.array(AcceptanceCriterion) }),
  implementation_recorded: z.object({ label: z.string(), files: z.array(z.string()), fix_round: z.number().int() }),
  files_rejected: z.object({ label: z.string(), error: z.string() }),
  /** Reading before writing: a role asked to read files before giving its answer `label`. */
  files_requested: z.object({
    role: z.string(),
    label: z.string(),
    call_id: z.string(),
    paths: z.array(z.string()),
    round: z.number().int().min(1),
    /** Paths not read: over the per-request limit, or every path of a role with `workspace: none`. */
    refused: z.array(z.string()).optional(),
  }),
  files_read: z.object({
    label: z.string(),
    files: z.array(z.object({ path: z.string(), bytes: z.number().int().nullable(), truncated: z.boolean(), error: z.string().nullable() })),
  }),
  /** One turn of an agent-mode engineer's tool loop (API providers): the tools it called, run in the worktree. */
  engineer_tools_ran: z.object({
    label: z.string(),
    turn: z.number().int().min(1),
    tools: z.array(z.object({ name: z.string(), target: z.string().nullable(), is_error: z.boolean() })),
  }),
  tests_started: z.object({ implementation: z.string(), command: z.string() }),
  tests_completed: z.object({
    label: z.string(),
    exit_code: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    errors: z.number().int(),
    timed_out: z.boolean(),
  }),
  review_recorded: z.object({ label: z.string(), verdict: z.string() }),
  synthesis_recorded: z.object({ label: z.string(), verdict: z.string().nullish(), partial: z.boolean() }),
  open_question_raised: z.object({ role: z.string(), question: z.string() }),
  budget_warning: z.object({ cap: z.string(), used: z.number(), limit: z.number() }),
  run_halted: z.object({ reason: z.string() }),
  run_completed: z.object({
    status: RunStatus,
    verdict: z.string().nullish(),
    confidence: z.number().nullish(),
    /** A panel run's moderator synthesis and quality figures. */
    panel: PanelCompletion.optional(),
  }),
  run_failed: z.object({ reason: z.string() }),
  run_cancelled: z.object({ reason: z.string().nullish() }),
  run_resumed: z.object({ at: RunStage, rerun: z.boolean(), caps: z.record(z.string(), z.number()) }),
  // People in the loop (issue 21): gates, answers, merge.
  /** The run waits at `gate` for a person with the approve role; `subject` is what to look at. */
  approval_requested: z.object({ gate: z.string(), subject: z.record(z.string(), z.unknown()) }),
  /** `edits`: what the approver changed of the criteria at the criteria gate (absent: approved as they were). */
  approval_given: z.object({
    gate: z.string(),
    approver: z.string(),
    note: z.string().nullish(),
    edits: z
      .object({
        added: z.array(AcceptanceCriterion),
        dropped: z.array(AcceptanceCriterion),
        reworded: z.array(z.object({ id: z.string(), from: z.string(), to: z.string() })),
      })
      .optional(),
  }),
  approval_refused: z.object({ gate: z.string(), approver: z.string(), note: z.string().nullish() }),
  question_answered: z.object({ question_id: z.string(), answered_by: z.string(), answer: z.string() }),
  merge_completed: z.object({ into: z.string(), strategy: z.string(), commit: z.string(), previous: z.string() }),
  /** Nothing was merged, and the original is as it was: `reason` says why (a check that failed, a conflict, a dirty tree …). */
  merge_refused: z.object({ reason: z.string(), code: z.string() }),
  /** A role's call moved to its configured fallback provider after its own failed (a recorded decision). */
  provider_fallback: z.object({ role: z.string(), from: z.string(), to: z.string(), reason: z.string() }),

  // The panel workflow (seed 003).
  judges_dispatched: z.object({ judges: z.array(JudgeRole).min(1), round: z.number().int().min(0).optional() }),
  judge_verdict_completed: z.object({
    judge: JudgeRole,
    verdict: JudgeVerdict,
    completed: z.number().int().min(0),
    total: z.number().int().min(1),
  }),
  roast_panel_completed: z.object({ scores: ScoreMap, quality: PanelQuality.optional() }),
  panel_retry: z.object({ attempt: z.number().int().min(1), reasons: z.array(z.string()), judges: z.array(JudgeRole).optional() }),
  debate_message_published: z.object({
    speaker: JudgeRole,
    round: z.number().int().min(1),
    message: z.string(),
    label: z.string().optional(),
    responds_to: z.array(z.string()).optional(),
  }),
  debate_token_delta: z.object({ speaker: JudgeRole, round: z.number().int().min(1), delta: z.string() }),
  revote_started: z.object({ baseline: ScoreMap }),
  revote_judge_completed: z.object({
    judge: JudgeRole,
    score: JudgeScore,
    previous: JudgeScore,
    delta: z.number().int(),
    change_reason: z.string().nullish(),
    /** The judge asked for a bigger move than ±3; `score` is the capped one. */
    capped: z.boolean().optional(),
  }),
  moderator_completed: z.object({ synthesis: ModeratorSynthesis }),
  run_metrics: z.object({
    /** Wall-clock seconds per phase (roast, debate, revote, moderate). */
    phase_seconds: z.record(z.string(), z.number().min(0)),
    tokens: z.number().min(0),
    /** null: some call had no known price. */
    cost_usd: z.number().min(0).nullable(),
    calls: z.array(CallMetrics),
  }),
  appeal_started: z.object({ judges: z.array(JudgeRole).min(1), scores: ScoreMap, caps: z.record(z.string(), z.number()).optional() }),
  appeal_completed: z.object({
    judges: z.array(JudgeRole),
    scores: ScoreMap,
    previous: ScoreMap.optional(),
    change_reasons: z.partialRecord(JudgeRole, z.string()).optional(),
  }),
  panel_warning: z.object({ kind: PanelWarningKind, detail: z.string(), judges: z.array(JudgeRole).optional() }),
  // The experiment workflow (issue 24).
  /** The method's command started in the sandbox at the pinned commit. */
  method_started: z.object({ op_id: z.string(), command: z.string(), metrics: z.array(z.string()) }),
  /** What it measured (only stored with the preregistration's hash), or why there is nothing. */
  method_finished: z.object({ op_id: z.string(), metrics: z.record(z.string(), z.number()).nullable(), exit_code: z.number().nullable(), error: z.string().nullable() }),
  /** Decided by code from the criteria; an interpreter's other decision is an override request, never applied. */
  experiment_decided: z.object({
    decision: ExperimentDecision,
    computed: ExperimentDecision,
    override_request: z.object({ decision: ExperimentDecision, reason: z.string() }).nullable(),
    review_agrees: z.boolean().nullable(),
    open_question: z.string().nullable(),
  }),
} as const;
export type RunEventType = keyof typeof RUN_EVENT_PAYLOADS;
export type RunEventPayload<T extends RunEventType> = z.infer<(typeof RUN_EVENT_PAYLOADS)[T]>;
/** An event before it has a sequence: what a workflow step emits. */
export type NewRunEvent = { [T in RunEventType]: { type: T; payload: RunEventPayload<T> } }[RunEventType];
export const TERMINAL_EVENT_TYPES: readonly RunEventType[] = ['run_completed', 'run_failed', 'run_cancelled'];
