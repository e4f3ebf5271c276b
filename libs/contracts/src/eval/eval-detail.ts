import type { EvalBudget, EvalConfigKind } from './eval-request.schema';
import type { EvalDifficulty, EvalScorer } from './eval-suite.schema';

/**
 * `GET /v1/evals/:id` (issue 25): an eval, its cells (one task under one configuration) and the
 * summary computed from them (libs/workflow eval/eval-summary.ts). The CLI's table, JSON and plot
 * and the workbench's page are drawn from this one reply. Hidden tests are never in it.
 */

export interface EvalConfigView {
  name: string;
  kind: EvalConfigKind;
  /** The configuration it was derived from (itself for `as_configured`). */
  source: string;
  /** Runs per task: 1, or N for `vote`. */
  samples: number;
  /** Every role's provider/model, distinct, e.g. ["anthropic/claude-sonnet-4-5", "openai/gpt-5"]. */
  models: string[];
}

export type EvalCellStatus = 'running' | 'scoring' | 'scored' | 'error';

export interface EvalCellView {
  task: string;
  config: string;
  status: EvalCellStatus;
  runs: { id: string; status: string }[];
  /** The run whose work was scored (the plurality answer for `vote`). */
  chosen_run: string | null;
  passed: boolean | null;
  /** Why it passed or failed, in a line: "hidden tests: 5 passed", "verdict GO, reference NO-GO", an error. */
  reason: string | null;
  tokens: number;
  cost_usd: number;
  /** Wall time from the first run's start to the last run's end. */
  seconds: number;
}

export interface EvalConfigSummary {
  name: string;
  kind: EvalConfigKind;
  /** Cells scored (errors excluded). */
  n: number;
  passed: number;
  pass_rate: number | null;
  /** 95 % Wilson score interval of the pass rate. */
  interval: [number, number] | null;
  tokens: number;
  cost_usd: number;
  seconds: number;
  /** The most one task cost under this configuration: never above the eval's budget. */
  max_task_tokens: number;
  max_task_cost_usd: number;
}

/** Two configurations on the tasks both scored: how often each solved what the other did not. */
export interface EvalPairSummary {
  a: string;
  b: string;
  /** Tasks both scored. */
  n: number;
  /** Solved by a and not b, by b and not a. */
  a_only: number;
  b_only: number;
  /** pass rate of a minus that of b, on the paired tasks. */
  diff: number;
  /** 95 % paired bootstrap interval of diff (seeded, so the same cells give the same interval). */
  interval: [number, number];
  /** Exact McNemar test on the discordant pairs (two-sided). */
  p_value: number;
  significant: boolean;
}

export interface EvalSummary {
  configs: EvalConfigSummary[];
  pairs: EvalPairSummary[];
}

export interface EvalDetail {
  id: string;
  suite: string;
  score: EvalScorer;
  status: 'running' | 'done';
  created_at: string;
  finished_at: string | null;
  submitted_by: string | null;
  budget: EvalBudget;
  configs: EvalConfigView[];
  tasks: { id: string; difficulty: EvalDifficulty }[];
  cells: EvalCellView[];
  summary: EvalSummary;
  /** Cells scored or in error, of all cells: the progress bar's numbers. */
  progress: { done: number; total: number };
}

/** A line of `GET /v1/evals`. */
export interface EvalListItem {
  id: string;
  suite: string;
  score: EvalScorer;
  status: 'running' | 'done';
  created_at: string;
  configs: string[];
  progress: { done: number; total: number };
}
