import { preparedQuery } from '@roundtable/persistence';
import type { OperatorBudgets, UsageReport } from '@roundtable/contracts';
import type { UsageQuery } from './query-params';
import type { ReadDb } from './read-db';

/** Whose rows a reader may see: one team's, or (an admin, an open API) every team's. */
export type UsageReader = { team: string } | 'all';

/**
 * Spending by team and project (GET /v1/usage, issue 26): calls finished since a time from
 * agent_calls (every try counts; a fork's copies count nothing: they were billed to the run they
 * were copied from) and the reservations of calls in flight now, beside the operator's caps
 * across runs. The orchestrator enforces those caps (apps/orchestrator/src/sql/scope-usage.sql.ts);
 * this only reports.
 *
 * Parameters: since, team filter, project filter (null: any).
 */
const USAGE_SQL = `WITH finished AS (
     SELECT r.team, p.name AS project, r.id AS run_id, count(*) AS calls,
            coalesce(sum(c.input_tokens), 0) AS input_tokens, coalesce(sum(c.output_tokens), 0) AS output_tokens,
            coalesce(sum(c.cost_usd), 0) AS cost_usd, count(*) FILTER (WHERE c.cost_usd IS NULL) AS unpriced_calls
       FROM agent_calls c JOIN runs r ON r.id = c.run_id JOIN projects p ON p.id = r.project_id
      WHERE c.status IN ('completed', 'failed') AND c.copied_from IS NULL
        AND coalesce(c.finished_at, c.created_at) >= $1::timestamptz
        AND ($2::text IS NULL OR r.team = $2) AND ($3::text IS NULL OR p.name = $3)
      GROUP BY r.team, p.name, r.id
   ),
   held AS (
     SELECT r.team, p.name AS project, r.id AS run_id, sum(b.calls) AS calls, sum(b.tokens) AS tokens, coalesce(sum(b.cost_usd), 0) AS cost_usd
       FROM budget_reservations b JOIN runs r ON r.id = b.run_id JOIN projects p ON p.id = r.project_id
       LEFT JOIN agent_calls c ON c.id = b.call_id
      WHERE NOT (r.status = 'cancelled' AND c.status = 'queued')
        AND ($2::text IS NULL OR r.team = $2) AND ($3::text IS NULL OR p.name = $3)
      GROUP BY r.team, p.name, r.id
   )
   SELECT coalesce(f.team, h.team) AS team, coalesce(f.project, h.project) AS project,
          count(DISTINCT coalesce(f.run_id, h.run_id))::int AS runs,
          coalesce(sum(f.calls), 0)::int AS calls, coalesce(sum(f.input_tokens), 0)::bigint AS input_tokens,
          coalesce(sum(f.output_tokens), 0)::bigint AS output_tokens, coalesce(sum(f.cost_usd), 0)::float8 AS cost_usd,
          coalesce(sum(f.unpriced_calls), 0)::int AS unpriced_calls,
          coalesce(sum(h.calls), 0)::int AS held_calls, coalesce(sum(h.tokens), 0)::bigint AS held_tokens, coalesce(sum(h.cost_usd), 0)::float8 AS held_cost_usd
     FROM finished f FULL JOIN held h ON h.run_id = f.run_id
    GROUP BY 1, 2
    ORDER BY 1, 2`;

interface Row {
  team: string;
  project: string;
  runs: number;
  calls: number;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_usd: number;
  unpriced_calls: number;
  held_calls: number;
  held_tokens: string | number;
  held_cost_usd: number;
}

export class UsageService {
  constructor(
    private readonly db: ReadDb,
    private readonly budgets: OperatorBudgets,
  ) {}

  /** The reader's rows: a team's reader asking for another team gets none (no oracle for which teams spend). */
  async report(query: UsageQuery, reader: UsageReader, now = new Date()): Promise<UsageReport> {
    const since = query.since ?? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const team = reader === 'all' ? (query.team ?? null) : reader.team;
    if (reader !== 'all' && query.team !== undefined && query.team !== reader.team) return { since: since.toISOString(), rows: [] };
    // Replica: a report of spending since a time, a moment old at worst; the orchestrator enforces the caps on the primary.
    const { rows } = await preparedQuery<Row>(this.db.lagging, USAGE_SQL, [since, team, query.project ?? null]);
    return {
      since: since.toISOString(),
      rows: rows.map((r) => ({
        team: r.team,
        project: r.project,
        runs: r.runs,
        calls: r.calls,
        input_tokens: Number(r.input_tokens),
        output_tokens: Number(r.output_tokens),
        cost_usd: r.cost_usd,
        unpriced_calls: r.unpriced_calls,
        in_flight: { calls: r.held_calls, tokens: Number(r.held_tokens), cost_usd: r.held_cost_usd },
        team_caps: this.budgets.teams[r.team] ?? null,
        project_caps: this.budgets.projects[r.project] ?? null,
      })),
    };
  }
}
