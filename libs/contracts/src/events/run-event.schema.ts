import { z } from 'zod';
import { RunStatus, Stage } from '../run/run-vocabulary';

/** What every SSE data frame carries; `sequence` is per run, gap-free, and the SSE frame id. */
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

/** The catalogue of event types, snake_case, each with its payload schema. */
export const RUN_EVENT_PAYLOADS = {
  run_created: z.object({ project: z.string(), workflow: z.string() }),
  run_started: z.object({ workspace: z.string().nullish() }),
  stage_changed: z.object({ from: Stage, to: Stage, reason: z.string() }),
  agent_call_queued: z.object(CallFacts),
  agent_call_completed: z.object({
    ...CallFacts,
    valid: z.boolean(),
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    cost_usd: z.number().nullish(),
    latency_ms: z.number().nullish(),
    gist: z.string().nullish(),
  }),
  agent_call_failed: z.object({ ...CallFacts, error: z.string(), error_code: z.string().nullish() }),
  proposal_recorded: z.object({ label: z.string(), claim: z.string(), confidence: z.number(), revision_of: z.string().nullish() }),
  critique_recorded: z.object({ label: z.string(), target: z.string(), verdict: z.string(), problems: z.number().int() }),
  criteria_locked: z.object({ criteria: z.array(z.object({ id: z.string(), text: z.string() })) }),
  implementation_recorded: z.object({ label: z.string(), files: z.array(z.string()), fix_round: z.number().int() }),
  files_rejected: z.object({ label: z.string(), error: z.string() }),
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
  run_completed: z.object({ status: RunStatus, verdict: z.string().nullish(), confidence: z.number().nullish() }),
  run_failed: z.object({ reason: z.string() }),
  run_cancelled: z.object({ reason: z.string().nullish() }),
  run_resumed: z.object({ at: Stage, rerun: z.boolean(), caps: z.record(z.string(), z.number()) }),
} as const;
export type RunEventType = keyof typeof RUN_EVENT_PAYLOADS;
export type RunEventPayload<T extends RunEventType> = z.infer<(typeof RUN_EVENT_PAYLOADS)[T]>;
/** An event before it has a sequence: what a workflow step emits. */
export type NewRunEvent = { [T in RunEventType]: { type: T; payload: RunEventPayload<T> } }[RunEventType];
export const TERMINAL_EVENT_TYPES: readonly RunEventType[] = ['run_completed', 'run_failed', 'run_cancelled'];
