import type { EntityManager } from 'typeorm';
import type { BuildRole, ProjectConfig, Stage, RunStatus, TestResult } from '@roundtable/contracts';
import { ArtifactEntity } from '../entities/artifact.entity';
import { CritiqueEntity } from '../entities/critique.entity';
import { ImplementationEntity } from '../entities/implementation.entity';
import { ProposalEntity } from '../entities/proposal.entity';
import { RunEntity } from '../entities/run.entity';
import { SynthesisEntity } from '../entities/synthesis.entity';
import { TestRunEntity } from '../entities/test-run.entity';
import { WorkspaceOpEntity } from '../entities/workspace-op.entity';
import { OpenQuestionEntity } from '../entities/open-question.entity';
import type {
  AcceptanceCriterion,
  BuildRunState,
  CritiqueRecord,
  ImplementationRecord,
  ProposalRecord,
  SynthesisRecord,
  TestRunRecord,
  UsageSnapshot,
  UsageTotals,
} from '@roundtable/workflow'; // types only: persistence serves the workflow's view of a run

const TAIL_BYTES = 4096;
const zero = (): UsageTotals => ({ calls: 0, tokens: 0, costUsd: 0 });

/** Labels are stored; ids are `${runId}-${label}`, so a label is the id's suffix. */
export function labelOfId(runId: string, id: string | null): string | null {
  if (!id) return null;
  return id.startsWith(`${runId}-`) ? id.slice(runId.length + 1) : id;
}

/**
 * Rebuilds the workflow's view of a run from Postgres, inside the step's transaction (the
 * run row is already locked). Everything decide() may need is here; nothing else is read.
 */
export async function loadBuildRunState(em: EntityManager, run: RunEntity, now: Date): Promise<BuildRunState> {
  const runId = run.id;
  // One after another: these run on the step's transaction, and a connection takes one query at a time.
  const proposals = await em.find(ProposalEntity, { where: { runId }, order: { createdAt: 'ASC', label: 'ASC' } });
  const critiques = await em.find(CritiqueEntity, { where: { runId }, order: { createdAt: 'ASC', label: 'ASC' } });
  const implementations = await em.find(ImplementationEntity, { where: { runId }, order: { createdAt: 'ASC', label: 'ASC' } });
  const testRuns = await em.find(TestRunEntity, { where: { runId }, order: { createdAt: 'ASC', label: 'ASC' } });
  const syntheses = await em.find(SynthesisEntity, { where: { runId }, order: { createdAt: 'DESC' }, take: 1 });
  const ops = await em.find(WorkspaceOpEntity, { where: { runId, status: 'done' }, order: { finishedAt: 'DESC' } });
  const questions = await em.find(OpenQuestionEntity, { where: { runId }, order: { id: 'ASC' } });
  const outputs = testRuns.length
    ? await em
        .getRepository(ArtifactEntity)
        .createQueryBuilder('a')
        .select(['a.id', 'a.content'])
        .where('a.id IN (:...ids)', { ids: testRuns.map((t) => t.outputArtifactId).filter(Boolean) as string[] })
        .getMany()
        .catch(() => [] as ArtifactEntity[])
    : [];
  const outputById = new Map(outputs.map((a) => [a.id, a.content]));

  const latestTree = ops.find((o) => Array.isArray((o.result as { tree?: unknown } | null)?.tree));
  return {
    runId,
    status: run.status as RunStatus,
    stage: run.stage as Stage,
    round: run.round,
    fixRound: run.fixRound,
    criteria: (run.criteria as unknown as AcceptanceCriterion[] | null) ?? null,
    unresolved: run.unresolved,
    haltReason: run.haltReason,
    config: run.config as unknown as ProjectConfig,
    workspace: {
      path: run.workspacePath,
      tree: ((latestTree?.result as { tree?: string[] } | null)?.tree ?? []) as string[],
    },
    proposals: proposals.map(
      (p): ProposalRecord => ({
        id: p.id,
        label: p.label,
        callId: p.callId,
        round: p.round,
        revisionOf: labelOfId(runId, p.revisionOf),
        status: p.status as ProposalRecord['status'],
        body: p.body as unknown as ProposalRecord['body'],
      }),
    ),
    critiques: critiques.map(
      (c): CritiqueRecord => ({
        id: c.id,
        label: c.label,
        callId: c.callId,
        targetKind: c.targetKind as CritiqueRecord['targetKind'],
        targetLabel: labelOfId(runId, c.targetId) ?? c.targetId,
        verdict: c.verdict as CritiqueRecord['verdict'],
        body: c.body as unknown as CritiqueRecord['body'],
      }),
    ),
    implementations: implementations.map(
      (i): ImplementationRecord => ({
        id: i.id,
        label: i.label,
        callId: i.callId,
        proposalLabel: labelOfId(runId, i.proposalId) ?? i.proposalId,
        fixRound: i.fixRound,
        status: i.status as ImplementationRecord['status'],
        applyError: i.applyError,
        body: i.body as unknown as ImplementationRecord['body'],
      }),
    ),
    testRuns: testRuns.map((t) => testRunRecord(runId, t, outputById.get(t.outputArtifactId ?? '') ?? '')),
    synthesis: syntheses[0]
      ? ({
          id: syntheses[0].id,
          label: syntheses[0].label,
          callId: syntheses[0].callId,
          partial: syntheses[0].partial,
          body: syntheses[0].body as unknown as SynthesisRecord['body'],
        } satisfies SynthesisRecord)
      : null,
    openQuestions: questions.map((q) => ({ role: q.raisedByRole as BuildRole, question: q.question })),
    usage: await loadUsage(em, runId, run.startedAt, now),
    counters: { ...(run.labelCounters ?? {}), call: run.callSeq },
  };
}

export function testRunRecord(runId: string, t: TestRunEntity, output: string): TestRunRecord {
  const result: TestResult = {
    command: t.command,
    exit_code: t.exitCode,
    passed: t.passed ?? 0,
    failed: t.failed ?? 0,
    errors: t.errors ?? 0,
    duration_s: t.durationS ?? 0,
    stdout_tail: output.length > TAIL_BYTES ? output.slice(-TAIL_BYTES) : output,
    timed_out: t.timedOut,
  };
  return { id: t.id, label: t.label, implementationLabel: labelOfId(runId, t.implementationId) ?? t.implementationId, result };
}

/** Recorded usage (every finished attempt) and reservations of calls still in flight. */
async function loadUsage(em: EntityManager, runId: string, startedAt: Date | null, now: Date): Promise<UsageSnapshot> {
  const used: { provider: string; calls: string; tokens: string; cost: string | null }[] = await em.query(
    `SELECT provider, calls, input_tokens + output_tokens AS tokens, cost_usd AS cost
       FROM usage_by_provider WHERE run_id = $1`,
    [runId],
  );
  const reserved: { provider: string; calls: string; tokens: string; cost: string | null }[] = await em.query(
    `SELECT provider, SUM(calls) AS calls, SUM(tokens) AS tokens, SUM(cost_usd) AS cost
       FROM budget_reservations WHERE run_id = $1 GROUP BY provider`,
    [runId],
  );
  const fold = (rows: typeof used) => {
    const total = zero();
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
  return {
    used: u.total,
    usedByProvider: u.by,
    reserved: r.total,
    reservedByProvider: r.by,
    elapsedSeconds: startedAt ? Math.max(0, (now.getTime() - startedAt.getTime()) / 1000) : 0,
  };
}
