import { z } from 'zod';
import { type BiasAudit, JudgeRole, Verdict } from '@roundtable/contracts';
import { runStatement } from '@roundtable/persistence';
import { biasAudit, type CritiqueFact, type JudgeScoreFact, type RevoteFact } from '@roundtable/workflow';
import { parseQuery } from '../query-params';
import type { TeamScope } from '../team-scope';
import type { ReadDb } from '../read-db';
import { BIAS_AUDIT_CRITIQUES, BIAS_AUDIT_REVOTES, BIAS_AUDIT_SCOPE, BIAS_AUDIT_TEST_RUNS, BIAS_AUDIT_VERDICTS } from './bias-audit.sql';

/**
 * The audit reads the newest runs up to this many (of the project, when one is named): enough for
 * a habit to show, few enough that one read stays a few queries over indexed rows. The reply says
 * when more matched (scope.truncated).
 */
export const BIAS_AUDIT_RUN_LIMIT = 2000;

/** `?project=<name>` on GET /v1/audit/bias; any other parameter is a 400 naming it. */
export const BiasAuditQuery = z.strictObject(
  {
    project: z.string({ error: 'project is a project name, given once' }).trim().min(1, 'project is a project name, not empty').max(200, 'project is at most 200 characters').optional(),
  },
  { error: (i) => (i.code === 'unrecognized_keys' ? `GET /v1/audit/bias takes only project (a project name); unknown: ${i.keys.join(', ')}` : undefined) },
);

const score = (raw: string): number | null => {
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
};

/** GET /v1/audit/bias: the facts read from the store (bias-audit.sql.ts), the report computed by libs/workflow's biasAudit(). */
export class BiasAuditService {
  constructor(private readonly db: ReadDb) {}

  /** Over the caller's team's runs only (`sees`; null: every team's, for admin). */
  async audit(query: unknown, sees: TeamScope): Promise<BiasAudit> {
    const { project } = parseQuery(BiasAuditQuery, query);
    // Replica: an audit over up to 2000 finished runs' facts; a moment's lag changes nothing it is for.
    // Every read from the one database, so the facts and the runs they belong to agree.
    const ds = this.db.lagging;
    const scoped = (await runStatement(ds, BIAS_AUDIT_SCOPE, project ?? null, BIAS_AUDIT_RUN_LIMIT + 1, sees)).rows;
    const truncated = scoped.length > BIAS_AUDIT_RUN_LIMIT;
    const runs = scoped.slice(0, BIAS_AUDIT_RUN_LIMIT);
    const ids = runs.map((r) => r.id);
    const [critiques, tests, verdicts, revotes] = await Promise.all([
      runStatement(ds, BIAS_AUDIT_CRITIQUES, ids),
      runStatement(ds, BIAS_AUDIT_TEST_RUNS, ids),
      runStatement(ds, BIAS_AUDIT_VERDICTS, ids),
      runStatement(ds, BIAS_AUDIT_REVOTES, ids),
    ]);
    return biasAudit({
      scope: { project: project ?? null, runLimit: BIAS_AUDIT_RUN_LIMIT, runs: runs.length, truncated },
      critiques: critiques.rows.flatMap((r): CritiqueFact[] => {
        const verdict = Verdict.safeParse(r.verdict);
        if (!verdict.success) return [];
        return [{ runId: r.run_id, seq: r.seq, role: r.role, provider: r.provider, model: r.model, targetKind: r.target_kind, verdict: verdict.data, authorProvider: r.author_provider }];
      }),
      testRuns: tests.rows.map((r) => ({ runId: r.run_id, seq: r.seq, passed: r.passed })),
      verdicts: verdicts.rows.flatMap((r): JudgeScoreFact[] => {
        const judge = JudgeRole.safeParse(r.judge);
        const s = score(r.score);
        return judge.success && s !== null ? [{ runId: r.run_id, seq: r.seq, judge: judge.data, provider: r.provider, model: r.model, score: s }] : [];
      }),
      revotes: revotes.rows.flatMap((r): RevoteFact[] => {
        const judge = JudgeRole.safeParse(r.judge);
        const [s, previous] = [score(r.score), score(r.previous)];
        return judge.success && s !== null && previous !== null ? [{ runId: r.run_id, seq: r.seq, judge: judge.data, provider: r.provider, model: r.model, score: s, previous }] : [];
      }),
      panels: runs.map((r) => ({ runId: r.id, createdAt: new Date(r.created_at).toISOString(), ideaId: r.idea_id, ideaVersion: r.idea_version })),
    });
  }
}
