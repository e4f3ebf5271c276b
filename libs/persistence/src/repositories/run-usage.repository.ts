import type { EntityManager } from 'typeorm';
import type { UsageSnapshot, UsageTotals } from '@roundtable/workflow'; // types only

interface UsageRow {
  provider: string;
  calls: number | string;
  tokens: number | string;
  cost: number | string | null;
}

/**
 * A run's usage as a workflow step sees it: recorded usage of finished calls (usage_by_provider)
 * and the reservations of calls still in flight (budget_reservations). The panel reads it on
 * its own; the build reads the same two tables inside its one state query.
 */
export async function loadRunUsage(em: EntityManager, run: { id: string; startedAt: Date | null }, now: Date): Promise<UsageSnapshot> {
  const [row] = (await em.query(
    `SELECT
       (SELECT coalesce(json_agg(json_build_object(
                 'provider', u.provider, 'calls', u.calls, 'tokens', u.input_tokens + u.output_tokens, 'cost', u.cost_usd)), '[]')
          FROM usage_by_provider u WHERE u.run_id = $1) AS used,
       (SELECT coalesce(json_agg(r), '[]')
          FROM (SELECT provider, SUM(calls) AS calls, SUM(tokens) AS tokens, SUM(cost_usd) AS cost
                  FROM budget_reservations WHERE run_id = $1 GROUP BY provider) r) AS reserved`,
    [run.id],
  )) as { used: UsageRow[]; reserved: UsageRow[] }[];
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
  const used = fold(row.used);
  const reserved = fold(row.reserved);
  return {
    used: used.total,
    usedByProvider: used.by,
    reserved: reserved.total,
    reservedByProvider: reserved.by,
    elapsedSeconds: run.startedAt ? Math.max(0, (now.getTime() - run.startedAt.getTime()) / 1000) : 0,
  };
}
