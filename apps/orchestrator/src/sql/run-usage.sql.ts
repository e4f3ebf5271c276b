import { statement } from '@roundtable/persistence';
import type { SharedUsage, UsageSnapshot, UsageTotals } from '@roundtable/workflow';

/** One provider's figures, as the usage columns below give them (Postgres numerics arrive as strings). */
export interface UsageRow {
  provider: string;
  calls: number | string;
  tokens: number | string;
  cost: number | string | null;
}

/**
 * The `used` and `reserved` columns of a run's usage ($1 = run id): recorded usage of finished
 * calls (usage_by_provider) and the reservations of calls still in flight (budget_reservations).
 * The build's state query selects them beside its other columns.
 */
export const USAGE_COLUMNS_SQL = `(SELECT coalesce(json_agg(json_build_object(
            'provider', u.provider, 'calls', u.calls, 'tokens', u.input_tokens + u.output_tokens, 'cost', u.cost_usd)), '[]')
     FROM usage_by_provider u WHERE u.run_id = $1) AS used,
  (SELECT coalesce(json_agg(r), '[]')
     FROM (SELECT provider, SUM(calls) AS calls, SUM(tokens) AS tokens, SUM(cost_usd) AS cost
             FROM budget_reservations WHERE run_id = $1 GROUP BY provider) r) AS reserved`;

/**
 * What a step reads beside the locked run row, for either workflow: the run's usage, one row
 * per provider (recorded) and per call in flight (reserved), whatever the run's length. The
 * workflow's own state is the snapshot on the run row itself (runs.workflow_state).
 */
export const RUN_USAGE = statement<{ used: UsageRow[]; reserved: UsageRow[] }>()({
  text: `SELECT ${USAGE_COLUMNS_SQL}`,
  params: (runId: string): unknown[] => [runId],
});

/** How long a run has waited for people: its closed waits, and the one open now (engine/gates.ts). */
export interface RunWaits {
  waitedSeconds?: number | null;
  gateOpenedAt?: Date | null;
}

/** Seconds since the run started, less the time it waited at gates: what max_seconds counts. */
export function workingSeconds(startedAt: Date | null, now: Date, waits: RunWaits = {}): number {
  if (!startedAt) return 0;
  const open = waits.gateOpenedAt ? Math.max(0, now.getTime() - new Date(waits.gateOpenedAt).getTime()) / 1000 : 0;
  return Math.max(0, (now.getTime() - startedAt.getTime()) / 1000 - Number(waits.waitedSeconds ?? 0) - open);
}

/** A run's usage as a workflow step sees it, from the two usage columns. */
export function usageSnapshot(used: UsageRow[], reserved: UsageRow[], startedAt: Date | null, now: Date, waits: RunWaits = {}): UsageSnapshot {
  const fold = (rows: UsageRow[]) => {
    const total: UsageTotals = { calls: 0, tokens: 0, costUsd: 0 };
    const by: Record<string, UsageTotals> = {};
    for (const r of rows) {
      const t = { calls: Number(r.calls), tokens: Number(r.tokens), costUsd: Number(r.cost ?? 0) };
      by[r.provider] = t;
      total.calls += t.calls;
      total.tokens += t.tokens;
      total.costUsd += t.costUsd;
    }
    return { total, by };
  };
  const u = fold(used);
  const r = fold(reserved);
  // A provider's recorded cost is NULL while none of its calls had a price (the settle's upsert
  // keeps NULL until a priced call lands): those calls are the unpriced ones a prompt must not
  // call free. A provider mixing priced and unpriced models counts as priced here; the api's
  // usage (from agent_calls) gives the exact count.
  const unpricedCalls = used.filter((row) => row.cost === null).reduce((n, row) => n + Number(row.calls), 0);
  return {
    used: u.total,
    usedByProvider: u.by,
    reserved: r.total,
    reservedByProvider: r.by,
    elapsedSeconds: workingSeconds(startedAt, now, waits),
    ...(unpricedCalls > 0 ? { unpricedCalls } : {}),
  };
}

/**
 * A run's usage from a row that selected USAGE_COLUMNS_SQL (RUN_USAGE, and the build's state
 * query), with the caps across runs the step read beside it (`shared`: scope-usage.sql.ts), so
 * every workflow's ledger checks them alike.
 */
export function usageOfRow(row: Record<string, unknown>, run: { startedAt: Date | null } & RunWaits, now: Date): UsageSnapshot {
  const { used, reserved, shared } = row as { used: UsageRow[]; reserved: UsageRow[]; shared?: SharedUsage[] };
  const usage = usageSnapshot(used, reserved, run.startedAt, now, run);
  return shared?.length ? { ...usage, shared } : usage;
}
