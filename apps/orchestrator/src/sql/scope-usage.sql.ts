import type { OperatorBudgets } from '@roundtable/contracts';
import { statement } from '@roundtable/persistence';
import type { SharedUsage } from '@roundtable/workflow';

/**
 * Caps across runs (issue 26): what a step reads, in its first round trip, when the operator's
 * policy caps the run's team or project. Sent after the run lock (lock-run.sql.ts), so the lock
 * order is always run → team → project and two steps never wait on each other in a circle.
 *
 * The scope's lock is a transaction-level advisory lock: held until the step's COMMIT, which
 * writes this step's calls with their reservations. A step of another run of the same team
 * waits for it, then reads those reservations: two runs racing for the last call, at most one
 * gets it. A run of a team (or project) the policy does not cap takes no lock.
 *
 * Parameters of the locks: run id, the capped names as a JSON array.
 */
export const LOCK_TEAM_SCOPE = statement<never>()({
  text: `SELECT pg_advisory_xact_lock(hashtextextended('roundtable.budgets.teams:' || r.team, 0))::text AS locked
           FROM runs r WHERE r.id = $1 AND jsonb_exists($2::jsonb, r.team)`,
  params: (runId: string, cappedTeams: string[]): unknown[] => [runId, JSON.stringify(cappedTeams)],
});

/** The project's lock (a project is what a project file names: projects.name, across every run that names it). */
export const LOCK_PROJECT_SCOPE = statement<never>()({
  text: `SELECT pg_advisory_xact_lock(hashtextextended('roundtable.budgets.projects:' || p.name, 0))::text AS locked
           FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.id = $1 AND jsonb_exists($2::jsonb, p.name)`,
  params: (runId: string, cappedProjects: string[]): unknown[] => [runId, JSON.stringify(cappedProjects)],
});

/** One capped scope of the run, over all its runs; numerics arrive as strings. */
export interface ScopeUsageRow {
  kind: 'teams' | 'projects';
  name: string;
  calls_today: number | string;
  usd_today: number | string;
  usd_total: number | string;
}

/**
 * The figures of the run's capped scopes over every run of each: a finished call counts once it
 * is settled (its reservation released, its usage recorded), today by when it finished (UTC day
 * from $4); a call in flight counts by its reservation, today and in the total. A fork's copy of
 * a call counts nothing (it was billed to the run it was copied from). A reservation of a call a
 * cancelled run withdrew before it ran (still queued) holds nothing: it will never be asked.
 * Only the calls of runs whose row changed today are read for today's figures: a call is settled
 * in a step, and every step writes its run's row (updated_at), so a call settled today is in a
 * run updated today; what a step reads stays the team's runs (rows) and today's calls, not every
 * call the team ever made.
 * Parameters: run id, capped teams (JSON), capped projects (JSON), the start of today (UTC).
 */
export const SCOPE_USAGE = statement<ScopeUsageRow>()({
  text: `WITH me AS (
       SELECT r.team, p.name AS project FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.id = $1
     ),
     scopes AS (
       SELECT 'teams'::text AS kind, me.team AS name FROM me WHERE jsonb_exists($2::jsonb, me.team)
       UNION ALL
       SELECT 'projects'::text, me.project FROM me WHERE jsonb_exists($3::jsonb, me.project)
     ),
     scope_runs AS (
       SELECT s.kind, r.id, r.status, r.updated_at >= $4::timestamptz AS today FROM scopes s JOIN runs r ON r.team = s.name WHERE s.kind = 'teams'
       UNION ALL
       SELECT s.kind, r.id, r.status, r.updated_at >= $4::timestamptz FROM scopes s JOIN projects p ON p.name = s.name JOIN runs r ON r.project_id = p.id WHERE s.kind = 'projects'
     )
     SELECT s.kind, s.name,
            coalesce(f.calls, 0) + coalesce(h.calls, 0) AS calls_today,
            coalesce(f.usd, 0) + coalesce(h.usd, 0) AS usd_today,
            coalesce(t.usd, 0) + coalesce(h.usd, 0) AS usd_total
       FROM scopes s
       LEFT JOIN LATERAL (
         SELECT count(*) AS calls, sum(c.cost_usd) AS usd
           FROM scope_runs sr JOIN agent_calls c ON c.run_id = sr.id
          WHERE sr.kind = s.kind AND sr.today AND c.status IN ('completed', 'failed') AND c.copied_from IS NULL
            AND coalesce(c.finished_at, c.created_at) >= $4::timestamptz
            AND NOT EXISTS (SELECT 1 FROM budget_reservations b WHERE b.call_id = c.id)
       ) f ON true
       LEFT JOIN LATERAL (
         SELECT sum(b.calls) AS calls, sum(b.cost_usd) AS usd
           FROM scope_runs sr JOIN budget_reservations b ON b.run_id = sr.id
           LEFT JOIN agent_calls c ON c.id = b.call_id
          WHERE sr.kind = s.kind AND NOT (sr.status = 'cancelled' AND c.status = 'queued')
       ) h ON true
       LEFT JOIN LATERAL (
         SELECT sum(u.cost_usd) AS usd FROM scope_runs sr JOIN usage_by_provider u ON u.run_id = sr.id WHERE sr.kind = s.kind
       ) t ON true
      ORDER BY s.kind DESC`,
  params: (runId: string, cappedTeams: string[], cappedProjects: string[], dayStart: Date): unknown[] => [
    runId,
    JSON.stringify(cappedTeams),
    JSON.stringify(cappedProjects),
    dayStart,
  ],
});

/** The start of `now`'s day, UTC: where "per day" caps count from. */
export function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** What the step sends for the policy's caps across runs: nothing when it caps no team and no project. */
export interface ScopeReads {
  teams: string[];
  projects: string[];
}

export function scopeReadsOf(budgets: OperatorBudgets): ScopeReads | null {
  const teams = Object.keys(budgets.teams);
  const projects = Object.keys(budgets.projects);
  return teams.length || projects.length ? { teams, projects } : null;
}

/** The run's scopes as the engine's ledger checks them: the policy's caps beside the figures read under the scopes' locks. */
export function sharedUsageOf(rows: ScopeUsageRow[], budgets: OperatorBudgets): SharedUsage[] {
  return rows.map((row) => ({
    scope: `${row.kind}.${row.name}`,
    label: `${row.kind === 'teams' ? 'team' : 'project'} ${row.name}`,
    caps: budgets[row.kind][row.name] ?? {},
    used: { callsToday: Number(row.calls_today), usdToday: Number(row.usd_today ?? 0), usdTotal: Number(row.usd_total ?? 0) },
  }));
}
