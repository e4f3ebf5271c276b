import { z } from 'zod';
import { EVAL_CONFIG_KINDS, EvalBudget } from './eval-request.schema';
import { EvalDifficulty, EvalScorer } from './eval-suite.schema';

/**
 * `GET /v1/evals/:id` (issue 25): an eval, its cells (one task under one configuration) and the
 * summary computed from them (libs/workflow eval/eval-summary.ts). The CLI's table, JSON and plot
 * and the workbench's page are drawn from this one reply. Hidden tests are never in it.
 */

const Interval = z.tuple([z.number(), z.number()]);

export const EvalConfigView = z.object({
  name: z.string(),
  kind: z.enum(EVAL_CONFIG_KINDS),
  /** The configuration it was derived from (itself for `as_configured`). */
  source: z.string(),
  /** Runs per task: 1, or N for `vote`. */
  samples: z.number().int(),
  /** Every role's provider/model, distinct, e.g. ["anthropic/claude-sonnet-4-5", "openai/gpt-5"]. */
  models: z.array(z.string()),
});
export type EvalConfigView = z.infer<typeof EvalConfigView>;

export const EVAL_CELL_STATUSES = ['running', 'scored', 'error'] as const;
export const EvalCellStatus = z.enum(EVAL_CELL_STATUSES);
export type EvalCellStatus = z.infer<typeof EvalCellStatus>;

export const EvalCellView = z.object({
  task: z.string(),
  config: z.string(),
  status: EvalCellStatus,
  runs: z.array(z.object({ id: z.string(), status: z.string() })),
  /** The run whose work was scored (the plurality answer for `vote`). */
  chosen_run: z.string().nullable(),
  passed: z.boolean().nullable(),
  /** Why it passed or failed, in a line: "hidden tests: 5 passed", "verdict GO, reference NO-GO", an error. */
  reason: z.string().nullable(),
  tokens: z.number(),
  cost_usd: z.number(),
  /** Wall time from the first run's start to the last run's end. */
  seconds: z.number(),
});
export type EvalCellView = z.infer<typeof EvalCellView>;

export const EvalConfigSummary = z.object({
  name: z.string(),
  kind: z.enum(EVAL_CONFIG_KINDS),
  /** Cells scored (errors excluded). */
  n: z.number().int(),
  passed: z.number().int(),
  pass_rate: z.number().nullable(),
  /** 95 % Wilson score interval of the pass rate. */
  interval: Interval.nullable(),
  tokens: z.number(),
  cost_usd: z.number(),
  seconds: z.number(),
  /** The most one task cost under this configuration: never above the eval's budget. */
  max_task_tokens: z.number(),
  max_task_cost_usd: z.number(),
});
export type EvalConfigSummary = z.infer<typeof EvalConfigSummary>;

/** Two configurations on the tasks both scored: how often each solved what the other did not. */
export const EvalPairSummary = z.object({
  a: z.string(),
  b: z.string(),
  /** Tasks both scored. */
  n: z.number().int(),
  /** Solved by a and not b, by b and not a. */
  a_only: z.number().int(),
  b_only: z.number().int(),
  /** pass rate of a minus that of b, on the paired tasks. */
  diff: z.number(),
  /** 95 % paired bootstrap interval of diff (seeded, so the same cells give the same interval). */
  interval: Interval,
  /** Exact McNemar test on the discordant pairs (two-sided). */
  p_value: z.number(),
  significant: z.boolean(),
});
export type EvalPairSummary = z.infer<typeof EvalPairSummary>;

export const EvalSummary = z.object({ configs: z.array(EvalConfigSummary), pairs: z.array(EvalPairSummary) });
export type EvalSummary = z.infer<typeof EvalSummary>;

const Progress = z.object({ done: z.number().int(), total: z.number().int() });

export const EvalDetail = z.object({
  id: z.string(),
  suite: z.string(),
  score: EvalScorer,
  status: z.enum(['running', 'done']),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  submitted_by: z.string().nullable(),
  budget: EvalBudget,
  configs: z.array(EvalConfigView),
  tasks: z.array(z.object({ id: z.string(), difficulty: EvalDifficulty })),
  cells: z.array(EvalCellView),
  summary: EvalSummary,
  /** Cells scored or in error, of all cells: the progress bar's numbers. */
  progress: Progress,
});
export type EvalDetail = z.infer<typeof EvalDetail>;

/** A line of `GET /v1/evals`. */
export const EvalListItem = z.object({
  id: z.string(),
  suite: z.string(),
  score: EvalScorer,
  status: z.enum(['running', 'done']),
  created_at: z.string(),
  configs: z.array(z.string()),
  progress: Progress,
});
export type EvalListItem = z.infer<typeof EvalListItem>;

export const EvalList = z.object({ evals: z.array(EvalListItem) });
export type EvalList = z.infer<typeof EvalList>;
