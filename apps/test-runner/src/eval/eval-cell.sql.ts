import { statement } from '@roundtable/persistence';

/**
 * The scorer's statements (issue 25). The score columns of eval_cells are the scorer's alone,
 * written once: every write is guarded by `status = 'running'`, so a second ask of the same cell
 * (a vote's samples each ask; a job delivered twice) changes nothing.
 */

export interface ScoringCellRow {
  id: string;
  eval_id: string;
  task_id: string;
  config: string;
  status: string;
  score: 'hidden_tests' | 'verdict';
  spec: Record<string, unknown>;
  hidden: { path: string; content: string }[] | null;
}

export const SELECT_SCORING_CELL = statement<ScoringCellRow>()({
  text: `SELECT c.id, c.eval_id, c.task_id, c.config, c.status, e.score, t.spec, t.hidden
           FROM eval_cells c JOIN evals e ON e.id = c.eval_id JOIN eval_tasks t ON t.eval_id = c.eval_id AND t.task_id = c.task_id
          WHERE c.id = $1`,
  params: (cellId: string): unknown[] => [cellId],
});

export interface CellRunRow {
  id: string;
  status: string;
  verdict: string | null;
  started_at: Date | null;
  created_at: Date;
  finished_at: Date | null;
  tokens: number;
  cost_usd: number;
}

/** The cell's runs in the order they were submitted (a vote's sample index), each with its recorded usage. */
export const SELECT_CELL_RUNS = statement<CellRunRow>()({
  text: `SELECT r.id, r.status, r.verdict, r.started_at, r.created_at, r.finished_at,
                coalesce(u.tokens, 0)::int AS tokens, coalesce(u.cost_usd, 0)::float8 AS cost_usd
           FROM runs r
           LEFT JOIN LATERAL (SELECT sum(input_tokens + output_tokens) AS tokens, sum(cost_usd) AS cost_usd
                                FROM usage_by_provider WHERE run_id = r.id) u ON true
          WHERE r.eval_cell_id = $1
          ORDER BY r.created_at, r.id`,
  params: (cellId: string): unknown[] => [cellId],
});

/**
 * Claims the cell for this scorer: none other holds it, or the one that did has held it past the
 * lease ($2 seconds: a scorer that died). No row: another scorer has it, or it is scored.
 */
export const CLAIM_CELL = statement<{ id: string }>()({
  text: `UPDATE eval_cells SET scoring_started_at = now()
          WHERE id = $1 AND status = 'running'
            AND (scoring_started_at IS NULL OR scoring_started_at < now() - make_interval(secs => $2))
          RETURNING id`,
  params: (cellId: string, leaseS: number): unknown[] => [cellId, leaseS],
});

/** Gives the claim back when the scorer stops before a score (so the next ask may take it at once). */
export const RELEASE_CELL = statement()({
  text: `UPDATE eval_cells SET scoring_started_at = NULL WHERE id = $1 AND status = 'running'`,
  params: (cellId: string): unknown[] => [cellId],
});

export interface CellScore {
  cellId: string;
  status: 'scored' | 'error';
  chosenRunId: string | null;
  passed: boolean | null;
  reason: string;
  detail: Record<string, unknown>;
  tokens: number;
  costUsd: number;
  seconds: number;
}

export const UPDATE_CELL_SCORE = statement()({
  text: `UPDATE eval_cells SET status = $2, chosen_run_id = $3, passed = $4, reason = $5, detail = $6::jsonb,
                tokens = $7, cost_usd = $8, seconds = $9, scored_at = now()
          WHERE id = $1 AND status = 'running'`,
  params: (s: CellScore): unknown[] => [s.cellId, s.status, s.chosenRunId, s.passed, s.reason, JSON.stringify(s.detail), s.tokens, s.costUsd, s.seconds],
});

/** The eval is done when its last running cell is scored. */
export const FINISH_EVAL_IF_SCORED = statement()({
  text: `UPDATE evals SET status = 'done', finished_at = now()
          WHERE id = $1 AND status = 'running'
            AND NOT EXISTS (SELECT 1 FROM eval_cells WHERE eval_id = $1 AND status = 'running')`,
  params: (evalId: string): unknown[] => [evalId],
});
