import { type DataSource, In } from 'typeorm';
import { DecisionEntity, RunEntity } from '@roundtable/persistence';
import type { ReportAudit } from '@roundtable/workflow';
import { apiWorkflowOf, findApiWorkflow } from './workflows/api-workflows';
import { ApiError } from './api-error';
import { encodeRunCursor, type RunListQuery } from './query-params';
import { ProviderCallTotals, runSeconds, summarizeUsage, UsageSummary } from './run-usage';
import { type ForkRow, type QuestionRow, runDetailView, runSummaryView } from './run-views';
import type { RunListItem, RunListUsage } from '@roundtable/contracts';
import type { TeamScope } from './team-scope';
import type { ReadDb } from './read-db';

interface TotalsRow {
  provider: string;
  calls: string | number;
  failed_calls: string | number;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_usd: string | null;
  unpriced: string | number;
  subscription_cost_usd: string | null;
}

/** The usage, and what the subscription calls in it would have cost at list price (not billed per call). */
type UsageWithSubscription = UsageSummary & { subscriptionCostUsd: number | null };

/** One page of GET /v1/runs, and the cursor of the next (null on the last page). */
export interface RunListPage {
  runs: RunListItem[];
  nextCursor: string | null;
}

/** q as a LIKE pattern's text: a backslash, `%` and `_` in it match themselves (ESCAPE '\\'). */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A run row and the database it was read from, where the rest of a view of it is read too. */
export interface LocatedRun {
  run: RunEntity;
  ds: DataSource;
}

/**
 * Read side of runs: lists, one run with its usage against its caps, and the report. Pure reads,
 * so on the read replica when there is one (ReadDb); a run the replica does not have yet is read
 * from the primary, whole.
 */
export class RunQueryService {
  constructor(private readonly db: ReadDb) {}

  /**
   * A page of runs, newest first: keyset pagination on (created_at DESC, id DESC), so a cursor
   * continues strictly after the run it names whatever was inserted since. One row past the page
   * is read to know whether there is a next one.
   */
  async list(q: RunListQuery, sees: TeamScope): Promise<RunListPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (v: unknown) => `$${params.push(v)}`;
    // Only the caller's team's runs (issue 26); admin's scope is every team.
    if (sees !== null) where.push(`r.team = ${param(sees)}`);
    if (q.status) where.push(`r.status = ${param(q.status)}`);
    if (q.workflow) where.push(`r.workflow = ${param(q.workflow)}`);
    if (q.q) {
      const like = param(`%${escapeLike(q.q)}%`);
      where.push(`(p.name ILIKE ${like} ESCAPE '\\' OR p.objective ILIKE ${like} ESCAPE '\\' OR r.id ILIKE ${like} ESCAPE '\\')`);
    }
    if (q.from) where.push(`r.created_at >= ${param(q.from.at.toISOString())}::timestamptz`);
    if (q.to) where.push(`r.created_at ${q.to.exclusive ? '<' : '<='} ${param(q.to.at.toISOString())}::timestamptz`);
    if (q.cursor) where.push(`(r.created_at, r.id) < (${param(q.cursor.createdAt)}::timestamptz, ${param(q.cursor.id)})`);
    // Replica: a list may be a moment old (a run submitted this instant shows at the next refresh); its
    // page, rows and usage come from one database, so they agree with each other.
    const ds = this.db.lagging;
    const rows: { id: string; created_at_us: string }[] = await ds.query(
      `SELECT r.id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_us
         FROM runs r
         JOIN projects p ON p.id = r.project_id
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY r.created_at DESC, r.id DESC
        LIMIT ${param(q.limit + 1)}`,
      params,
    );
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > q.limit && last ? encodeRunCursor({ createdAt: last.created_at_us, id: last.id }) : null;
    const byId = new Map((page.length ? await ds.getRepository(RunEntity).findBy({ id: In(page.map((r) => r.id)) }) : []).map((r) => [r.id, r]));
    const runs = page.map((r) => byId.get(r.id)).filter((r): r is RunEntity => r !== undefined);
    const usage = await this.listUsageOf(ds, runs.map((r) => r.id));
    return {
      runs: runs.map((r) => ({ ...runSummaryView(r), usage: usage.get(r.id) ?? { calls: 0, tokens: 0, cost_usd: null } })),
      nextCursor,
    };
  }

  /** The listed runs' calls, tokens and cost in one grouped query (not one per run), counted as usageOf counts them. */
  private async listUsageOf(ds: DataSource, runIds: string[]): Promise<Map<string, RunListUsage>> {
    if (runIds.length === 0) return new Map();
    const rows: { run_id: string; calls: string; tokens: string; cost_usd: string | null }[] = await ds.query(
      `SELECT run_id,
              COUNT(*) AS calls,
              COALESCE(SUM(input_tokens), 0) + COALESCE(SUM(output_tokens), 0) AS tokens,
              SUM(cost_usd) AS cost_usd
         FROM agent_calls
        WHERE run_id = ANY($1::text[]) AND status IN ('completed', 'failed') AND copied_from IS NULL
        GROUP BY run_id`,
      [runIds],
    );
    return new Map(
      rows.map((r) => [r.run_id, { calls: Number(r.calls), tokens: Number(r.tokens), cost_usd: r.cost_usd === null ? null : Math.round(Number(r.cost_usd) * 1e6) / 1e6 }]),
    );
  }

  async get(id: string) {
    const { run, ds } = await this.located(id);
    const { usage, byProvider } = await this.usageOf(ds, run, new Date());
    const [questions, forks, [project]] = (await Promise.all([
      ds.query(`SELECT raised_by_role, question, status, answer, answered_by FROM open_questions WHERE run_id = $1 ORDER BY id`, [id]),
      // The runs forked from this one: the original links to its forks as each fork links back.
      ds.query(`SELECT id, forked_from ->> 'stage' AS stage, status FROM runs WHERE forked_from ->> 'run_id' = $1 ORDER BY created_at, id`, [id]),
      ds.query(`SELECT objective, requirements FROM projects WHERE id = $1`, [run.projectId]),
    ])) as [QuestionRow[], ForkRow[], { objective: string; requirements: string[] }[]];
    const inputs = project ? { objective: project.objective, requirements: project.requirements ?? [] } : null;
    const view = runDetailView(run, usage, byProvider, questions, forks, inputs);
    // A run of a workflow this version does not know still shows what every run has.
    return { ...view, ...findApiWorkflow(run.workflow)?.detail(run) };
  }

  async report(id: string): Promise<string> {
    const { run, ds } = await this.located(id);
    const workflow = apiWorkflowOf(run);
    const [decisions, { usage, unpricedCalls, subscriptionCostUsd }] = await Promise.all([
      ds.getRepository(DecisionEntity).find({ where: { runId: id }, order: { id: 'ASC' } }),
      this.usageOf(ds, run, new Date()),
    ]);
    return workflow.report({ run, decisions, audit: { ...reportAudit(usage, unpricedCalls, subscriptionCostUsd), headHash: run.headHash } });
  }

  async runOrThrow(id: string): Promise<RunEntity> {
    return (await this.located(id)).run;
  }

  /**
   * The run, and the database to read the rest of its view from: the replica when it has the run
   * (it may be a moment behind, as any read of a running run is by the time it arrives), else the
   * primary — a run submitted this instant (GET right after its POST) is there, never a 404.
   * The rest of the view comes from the same database, so it never pairs a row with another's lag.
   */
  async located(id: string): Promise<LocatedRun> {
    const found = await this.db.orPrimary(async (ds) => {
      const run = await ds.getRepository(RunEntity).findOneBy({ id });
      return run ? { run, ds } : null;
    });
    if (!found) throw ApiError.notFound('run_not_found', `no run ${id}`);
    return found;
  }

  /** Usage from the audit log itself (finished calls), so it agrees with GET /calls row for row; a fork's copies were billed to the run they came from. */
  private async usageOf(ds: DataSource, run: RunEntity, now: Date): Promise<UsageWithSubscription> {
    const rows: TotalsRow[] = await ds.query(
      `SELECT provider,
              COUNT(*) AS calls,
              COUNT(*) FILTER (WHERE status = 'failed' OR valid IS FALSE) AS failed_calls,
              COALESCE(SUM(input_tokens), 0) AS input_tokens,
              COALESCE(SUM(output_tokens), 0) AS output_tokens,
              SUM(cost_usd) AS cost_usd,
              COUNT(*) FILTER (WHERE status = 'completed' AND cost_usd IS NULL) AS unpriced,
              SUM(cost_usd) FILTER (WHERE billing = 'subscription') AS subscription_cost_usd
         FROM agent_calls
        WHERE run_id = $1 AND status IN ('completed', 'failed') AND copied_from IS NULL
        GROUP BY provider
        ORDER BY provider`,
      [run.id],
    );
    const totals = rows.map(
      (r): ProviderCallTotals => ({
        provider: r.provider,
        calls: Number(r.calls),
        failedCalls: Number(r.failed_calls),
        inputTokens: Number(r.input_tokens),
        outputTokens: Number(r.output_tokens),
        costUsd: r.cost_usd === null ? null : Number(r.cost_usd),
        unpricedCalls: Number(r.unpriced),
      }),
    );
    const subscription = rows.filter((r) => r.subscription_cost_usd !== null).map((r) => Number(r.subscription_cost_usd));
    return {
      ...summarizeUsage(totals, runSeconds(run.startedAt, run.finishedAt, now, run)),
      subscriptionCostUsd: subscription.length ? Math.round(subscription.reduce((a, b) => a + b, 0) * 1e6) / 1e6 : null,
    };
  }
}

/** The audit line both reports end with: the known cost, and how many completed calls it leaves out for want of a price. */
function reportAudit(usage: UsageSummary['usage'], unpricedCalls: number, subscriptionCostUsd: number | null): ReportAudit {
  return {
    calls: usage.calls,
    failedCalls: usage.failed_calls,
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    costUsd: usage.cost_usd,
    unpricedCalls,
    subscriptionCostUsd,
    seconds: usage.seconds,
  };
}
