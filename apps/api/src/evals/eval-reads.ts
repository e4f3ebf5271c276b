import { z } from 'zod';
import type { DataSource } from 'typeorm';
import type { EvalBudget, EvalCellStatus, EvalCellView, EvalDetail, EvalListItem } from '@roundtable/contracts';
import { EvalEntity } from '@roundtable/persistence';
import { evalConfigView, evalPlotSvg, summarizeEval, type EvalArm } from '@roundtable/workflow';
import { ApiError } from '../api-error';
import { parseQuery } from '../query-params';
import type { TeamScope } from '../team-scope';
import type { ReadDb } from '../read-db';

/** The most GET /v1/evals answers with. */
export const EVAL_LIST_LIMIT = 100;

export const EvalListQuery = z.object({ suite: z.string({ error: 'suite is a suite name, given once' }).min(1).optional() }).strict();

interface CellRow {
  id: string;
  task_id: string;
  config: string;
  status: EvalCellStatus;
  chosen_run_id: string | null;
  passed: boolean | null;
  reason: string | null;
  tokens: number;
  cost_usd: string | number;
  seconds: number;
}

interface CellRunRow {
  eval_cell_id: string;
  id: string;
  status: string;
  tokens: number;
  cost_usd: number;
  seconds: number;
}

/**
 * What the evals routes read (issue 25): the list, an eval's detail with its summary (libs/workflow
 * summarizeEval: pass rates, intervals, paired differences), and its plot. The hidden tests are
 * never selected here: only the test-runner's scorer reads eval_tasks.hidden. An eval's detail is read
 * from the primary (a POST answers with the detail of the eval it just wrote); the list from the
 * read replica when there is one.
 */
export class EvalReads {
  constructor(private readonly db: ReadDb) {}

  /** Reads a write's reply may make: the primary, which has the row the write just made. */
  private get ds(): DataSource {
    return this.db.primary;
  }

  async detail(id: string): Promise<EvalDetail> {
    const row = await this.ds.getRepository(EvalEntity).findOneBy({ id });
    if (!row) throw ApiError.notFound('eval_not_found', `no eval ${id}; GET /v1/evals lists them`);
    const tasks: { task_id: string; difficulty: EvalDetail['tasks'][number]['difficulty'] }[] = await this.ds.query(
      `SELECT task_id, difficulty FROM eval_tasks WHERE eval_id = $1 ORDER BY position`,
      [id],
    );
    const cells: CellRow[] = await this.ds.query(
      `SELECT id, task_id, config, status, chosen_run_id, passed, reason, tokens, cost_usd, seconds FROM eval_cells WHERE eval_id = $1`,
      [id],
    );
    // A running cell's usage so far is its runs' (a scored cell's is the scorer's sum, the same rows then).
    const runs: CellRunRow[] = await this.ds.query(
      `SELECT r.eval_cell_id, r.id, r.status, coalesce(u.tokens, 0)::int AS tokens, coalesce(u.cost_usd, 0)::float8 AS cost_usd,
              coalesce(extract(epoch FROM (coalesce(r.finished_at, now()) - coalesce(r.started_at, r.created_at))), 0)::float8 AS seconds
         FROM runs r JOIN eval_cells c ON c.id = r.eval_cell_id
         LEFT JOIN LATERAL (SELECT sum(input_tokens + output_tokens) AS tokens, sum(cost_usd) AS cost_usd FROM usage_by_provider WHERE run_id = r.id) u ON true
        WHERE c.eval_id = $1
        ORDER BY r.created_at, r.id`,
      [id],
    );
    const runsOf = new Map<string, CellRunRow[]>();
    for (const r of runs) runsOf.set(r.eval_cell_id, [...(runsOf.get(r.eval_cell_id) ?? []), r]);
    const arms = row.configs as unknown as EvalArm[];
    const position = new Map(tasks.map((t, i) => [t.task_id, i]));
    const armAt = new Map(arms.map((a, i) => [a.name, i]));
    const views: EvalCellView[] = cells
      .sort((a, b) => position.get(a.task_id)! - position.get(b.task_id)! || armAt.get(a.config)! - armAt.get(b.config)!)
      .map((c) => {
        const own = runsOf.get(c.id) ?? [];
        const scored = c.status !== 'running';
        return {
          task: c.task_id,
          config: c.config,
          status: c.status,
          runs: own.map((r) => ({ id: r.id, status: r.status })),
          chosen_run: c.chosen_run_id,
          passed: c.passed,
          reason: c.reason,
          tokens: scored ? Number(c.tokens) : own.reduce((n, r) => n + Number(r.tokens), 0),
          cost_usd: scored ? Number(c.cost_usd) : own.reduce((n, r) => n + Number(r.cost_usd), 0),
          seconds: scored ? Number(c.seconds) : Math.max(0, ...own.map((r) => Number(r.seconds))),
        };
      });
    const configs = arms.map(evalConfigView);
    return {
      id: row.id,
      suite: row.suite,
      score: row.score,
      status: row.status,
      created_at: row.createdAt.toISOString(),
      finished_at: row.finishedAt?.toISOString() ?? null,
      submitted_by: row.submittedBy,
      budget: row.budget as unknown as EvalBudget,
      configs,
      tasks: tasks.map((t) => ({ id: t.task_id, difficulty: t.difficulty })),
      cells: views,
      summary: summarizeEval(configs, views),
      progress: { done: views.filter((c) => c.status !== 'running').length, total: views.length },
    };
  }

  /** Newest first, the caller's team's only (`sees`; null: every team's). */
  async list(query: unknown, sees: TeamScope): Promise<{ evals: EvalListItem[] }> {
    const q = parseQuery(EvalListQuery, query);
    // Replica: a list may be a moment old (an eval's progress, one just submitted), never wrong for long.
    const rows: { id: string; suite: string; score: EvalListItem['score']; status: EvalListItem['status']; created_at: Date; configs: EvalArm[]; done: number; total: number }[] = await this.db.lagging.query(
      `SELECT e.id, e.suite, e.score, e.status, e.created_at, e.configs,
              count(c.id) FILTER (WHERE c.status <> 'running')::int AS done, count(c.id)::int AS total
         FROM evals e LEFT JOIN eval_cells c ON c.eval_id = e.id
        WHERE ($1::text IS NULL OR e.suite = $1) AND ($3::text IS NULL OR e.team = $3)
        GROUP BY e.id
        ORDER BY e.created_at DESC, e.id DESC
        LIMIT $2`,
      [q.suite ?? null, EVAL_LIST_LIMIT, sees],
    );
    return {
      evals: rows.map((r) => ({
        id: r.id,
        suite: r.suite,
        score: r.score,
        status: r.status,
        created_at: new Date(r.created_at).toISOString(),
        configs: r.configs.map((a) => a.name),
        progress: { done: r.done, total: r.total },
      })),
    };
  }

  async plot(id: string): Promise<string> {
    return evalPlotSvg(await this.detail(id));
  }
}
