import { z } from 'zod';
import { API_TOKEN_ROLES } from '../config/api-token-entry';
import { ProviderCaps } from '../config/project-config.schema';
import { HandedOffFrom } from '../idea/handoff.schema';
import { PanelQualityStatus, PanelWarningKind } from '../panel/panel-quality.schema';
import { JudgeRole, JudgeScore } from '../panel/panel-vocabulary.schema';
import { AcceptanceCriterion } from '../run/acceptance-criterion.schema';
import { AgentCallStatus, RunStatus } from '../run/run-vocabulary';

/**
 * The JSON the API answers with, as zod schemas: the view functions are typed by them (run-views.ts),
 * the integration tests parse live replies with them, and /docs/openapi.json is generated from them.
 * So the document cannot describe a shape the API does not send.
 */

const iso = z.string().describe('ISO 8601 timestamp');

export const ApiErrorBody = z
  .object({
    error: z.string().describe('stable snake_case code, e.g. invalid_project_config, unauthorized, rate_limited'),
    message: z.string().describe('a sentence for a human'),
    issues: z
      .array(z.object({ path: z.string().describe('the field, dotted (agents.critic.provider), or the header or parameter'), message: z.string() }).catchall(z.unknown()))
      .optional()
      .describe('on a 400: one entry per field that is wrong'),
  })
  .catchall(z.unknown());

export const RunLinks = z.object({ self: z.string(), events: z.string(), report: z.string(), calls: z.string() });

export const SubmittedRun = z.object({ id: z.string(), status: z.literal('queued'), links: RunLinks });

/** POST /v1/runs/:id/fork: the new run, and what it was forked from. */
export const ForkedRun = SubmittedRun.extend({
  forked_from: z.object({ run_id: z.string(), stage: z.string(), copied_calls: z.number().int().describe('how many recorded calls before the stage it may copy instead of asking again') }),
});

/** The 201 of POST /v1/ideas/:id/handoff: the queued build, where it came from, and what it was asked (from the panel's synthesis). */
export const HandedOffRun = SubmittedRun.extend({
  handed_off_from: HandedOffFrom,
  objective: z.string(),
  requirements: z.array(z.string()),
});
export type HandedOffRun = z.infer<typeof HandedOffRun>;

export const RunSummary = z
  .object({
    id: z.string(),
    project: z.string(),
    workflow: z.string(),
    status: RunStatus,
    stage: z.string(),
    verdict: z.string().nullable(),
    created_at: iso.nullable(),
    finished_at: iso.nullable(),
  });

/** A run's calls in the list: finished calls only, as GET /v1/runs/:id counts them. */
export const RunListUsage = z.object({
  calls: z.number().describe('finished calls (completed or failed)'),
  tokens: z.number().describe('input + output tokens of those calls'),
  cost_usd: z.number().nullable().describe('the known prices summed; null when no call had one (never a guessed 0)'),
});

export const RunListItem = RunSummary.extend({ usage: RunListUsage });

export const RunList = z.array(RunListItem);

export const RunUsage = z
  .object({
    calls: z.number(),
    failed_calls: z.number(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    tokens: z.number(),
    cost_usd: z.number().nullable().describe('null when no call had a known price (never a guessed 0)'),
    unpriced_calls: z.number().describe('completed calls without a table price: cost_usd leaves them out, and the budget reserved no USD for them'),
    seconds: z.number().nullable(),
  });

export const ProviderUsage = z
  .object({ calls: z.number(), input_tokens: z.number(), output_tokens: z.number(), cost_usd: z.number().nullable() });

export const RunCaps = z
  .object({
    max_calls: z.number().nullable(),
    max_tokens: z.number().nullable(),
    max_cost_usd: z.number().nullable(),
    max_seconds: z.number().nullable(),
    max_rounds: z.number().nullable(),
    max_fix_rounds: z.number().nullable(),
    per_provider: z.record(z.string(), ProviderCaps).describe('budget.per_provider as submitted: caps per provider name'),
  });

/** A score per judge, as the panel's events carry them. */
const ScoreMap = z.partialRecord(JudgeRole, JudgeScore);

export const PanelSummary = z
  .object({
    idea: z.string(),
    recommendation: z.string().nullable(),
    confidence: z.number().nullable(),
    partial: z.boolean().nullable(),
    scores: ScoreMap.describe("each judge's current score (a judge not heard from yet is absent)"),
    revote_baseline: ScoreMap.nullable().describe('the scores when the re-vote started; null before it'),
    debate_messages: z.number(),
    max_debate_rounds: z.number(),
    quality: PanelQualityStatus.nullable(),
    low_confidence: z.boolean(),
    warnings: z.array(PanelWarningKind),
    appeal: z.object({ status: z.enum(['running', 'completed']), judges: z.array(JudgeRole) }).nullable(),
    can_appeal: z.union([z.literal(true), z.string()]).describe('true, or why the run cannot be appealed'),
  });

export const RunDetail = RunSummary.extend({
  round: z.number(),
  fix_round: z.number(),
  confidence: z.number().nullable(),
  halt_reason: z.string().nullable(),
  criteria: z.array(AcceptanceCriterion).nullable().describe('null until a critique accepts and the criteria are locked'),
  started_at: iso.nullable(),
  usage: RunUsage,
  caps: RunCaps,
  usage_by_provider: z.record(z.string(), ProviderUsage),
  panel: PanelSummary.optional().describe('panel runs only'),
  gate: z
    .object({ name: z.string(), subject: z.record(z.string(), z.unknown()), waiting_since: iso.nullable() })
    .nullable()
    .describe('the gate the run waits at (status awaiting_approval) and what to look at; null when it waits at none'),
  open_questions: z
    .array(
      z.object({
        id: z.string().describe('Q1, Q2 …: what POST /v1/runs/:id/answers names'),
        role: z.string(),
        question: z.string(),
        status: z.enum(['open', 'answered']),
        answer: z.string().nullable(),
        answered_by: z.string().nullable(),
      }),
    )
    .describe('questions the run raised, in order; an open one waits for a person'),
  solved: z
    .array(z.object({ check: z.string(), ok: z.boolean(), evidence: z.string() }))
    .optional()
    .describe('build runs: "solved" as four observable checks, each with the evidence it read'),
  forked_from: z
    .object({ run_id: z.string(), stage: z.string(), copied_calls: z.number().int() })
    .nullable()
    .describe('a fork: the run and stage it was started again from, and how many recorded calls it may copy; null for any other run'),
  forks: z.array(z.object({ id: z.string(), stage: z.string(), status: z.string() })).describe('the runs forked from this one, oldest first'),
  handed_off_from: HandedOffFrom.nullable().describe('a build handed on from an idea (POST /v1/ideas/:id/handoff): the idea, the version and panel it came from, and the panel\'s recommendation; null for any other run'),
  inputs: z
    .object({ objective: z.string(), requirements: z.array(z.string()) })
    .nullable()
    .describe("the project's objective and requirements as submitted (a panel's objective is its idea): what a fork's edits start from"),
});

export const CallSummary = z
  .object({
    id: z.string(),
    seq: z.number(),
    stage: z.string(),
    role: z.string(),
    provider: z.string(),
    model: z.string(),
    label: z.string().nullable(),
    attempt: z.number(),
    retry: z.number().describe('the try number: 0 is the first try, 1 the first retry after a transient failure (network, 5xx, 429, timeout)'),
    retry_of: z.string().nullable().describe('the id of the failed try this one repeats with the same messages; null on a first try'),
    status: AgentCallStatus,
    valid: z.boolean().nullable(),
    error: z.string().nullable(),
    error_code: z.string().nullable(),
    input_tokens: z.number().nullable(),
    output_tokens: z.number().nullable(),
    cost_usd: z.number().nullable(),
    cost_source: z.string().nullable(),
    latency_ms: z.number().nullable(),
    created_at: iso.nullable().describe('when the call was queued'),
    started_at: iso.nullable().describe('when a worker took it up; null while it waits in the queue'),
    finished_at: iso.nullable(),
    copied_from: z
      .string()
      .nullable()
      .describe("a fork's copy of the original run's call of this id (its reply, tokens and cost are that call's, not billed to this run); null: asked of a provider"),
  });

export const CallList = z.array(CallSummary);

export const CallDetail = CallSummary.extend({
  run_id: z.string(),
  repair_of: z.string().nullable(),
  schema_name: z.string().nullable(),
  schema: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("the JSON Schema of schema_name (the contracts' zod schema, as a provider is given it); null when the call has none or a name this version does not know"),
  prompt_hash: z.string(),
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'user', 'assistant', 'tool']),
        content: z.string(),
        /** A tool loop's turn: the tools an assistant message called, and which call a tool message answers. */
        toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) })).optional(),
        toolCallId: z.string().optional(),
        toolName: z.string().optional(),
        native: z.object({ type: z.string(), content: z.unknown() }).optional(),
      }),
    )
    .describe('the exact prompt sent'),
  context_refs: z.array(z.string()),
  max_tokens: z.number().nullable(),
  temperature: z.number().nullable(),
  timeout_ms: z.number().nullable(),
  response_text: z.string().nullable(),
  parsed: z.unknown(),
  cached_input_tokens: z.number().nullable(),
  request_id: z.string().nullable(),
  billing: z.string().nullable(),
  argv: z.array(z.string()).nullable(),
});

export const ControlRequested = z
  .object({
    id: z.string(),
    requested: z.enum(['cancel', 'resume']),
    status: RunStatus.describe("the run's status when the request was accepted"),
    job_id: z.string(),
    links: RunLinks,
  });

export const AppealRequested = z
  .object({
    id: z.string(),
    requested: z.literal('appeal'),
    status: RunStatus,
    judges: z.array(JudgeRole),
    evidence: z.number().describe('how many evidence items were accepted'),
    job_id: z.string(),
    links: RunLinks,
  });

/** Who the presented token is (GET /v1/me): the workbench shows act buttons to write tokens and open APIs only. */
export const Me = z.object({
  name: z.string().nullable().describe("the token's name in API_TOKENS; null when the API runs open (no tokens)"),
  role: z.enum([...API_TOKEN_ROLES, 'open']).describe("approve: may also approve or refuse at a gate; ops: writes in its team and opens Bull Board; admin: every right, on every team's rows; open: no API_TOKENS, every request may do anything"),
  team: z.string().describe("the token's team in API_TOKENS (name:token:role:team); default for a token given without one, and for an open API"),
});

/** A call tried again in the playground (issue 22): never part of the run's usage, events or report. */
export const PlaygroundCall = CallSummary.pick({
  id: true,
  role: true,
  provider: true,
  model: true,
  status: true,
  valid: true,
  error: true,
  error_code: true,
  input_tokens: true,
  output_tokens: true,
  cost_usd: true,
  latency_ms: true,
  finished_at: true,
}).extend({
  source_call_id: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  response_text: z.string().nullable(),
  parsed: z.unknown().nullable(),
  requested_by: z.string(),
  created_at: iso,
});
export const PlaygroundCallList = z.array(PlaygroundCall);
export type PlaygroundCall = z.infer<typeof PlaygroundCall>;

/** One shipped example project (GET /v1/examples), its text ready to post as it is (cassettes relative to the operator's roots). */
export const ExampleProject = z.object({
  name: z.string().describe("the example's directory, e.g. dd-demo"),
  workflow: z.string(),
  summary: z.string(),
  text: z.string().describe('the project file (YAML)'),
});
export const ExampleList = z.array(ExampleProject);

export const HealthReply = z.object({ status: z.literal('ok') });
export const ReadyReply = z.object({ status: z.literal('ok'), checks: z.record(z.string(), z.string()) });

export type RunSummary = z.infer<typeof RunSummary>;
export type RunListUsage = z.infer<typeof RunListUsage>;
export type RunListItem = z.infer<typeof RunListItem>;
export type PanelSummary = z.infer<typeof PanelSummary>;
export type RunDetail = z.infer<typeof RunDetail>;
export type CallSummary = z.infer<typeof CallSummary>;
export type CallDetail = z.infer<typeof CallDetail>;
export type Me = z.infer<typeof Me>;
export type ExampleProject = z.infer<typeof ExampleProject>;
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;
export type RunCaps = z.infer<typeof RunCaps>;
