import type { EntityManager } from 'typeorm';
import type { CritiqueEntity, ImplementationEntity, ProposalEntity, RunEntity, SynthesisEntity, TestRunEntity } from '@roundtable/persistence';
import { ApplyOpCommit, parseWorkspaceOp, readOpFiles, WorkspaceOpRowError, type BuildRole, type ProjectConfig, type Stage, type RunStatus, type TestResult } from '@roundtable/contracts';
import type {
  AcceptanceCriterion,
  BuildRunState,
  CritiqueRecord,
  FileReadRecord,
  ImplementationDiff,
  ImplementationRecord,
  ProposalRecord,
  SynthesisRecord,
  TestRunRecord,
} from '@roundtable/workflow';
import { runStatement, statement } from '@roundtable/persistence';
import { USAGE_COLUMNS_SQL, usageSnapshot, type UsageRow } from '../../sql/run-usage.sql';

const TAIL_BYTES = 4096;
/** How much of a stored diff enters the state (and so a prompt); the artifact keeps all of it. */
export const DIFF_PROMPT_CHARS = 48 * 1024;

/** Labels are stored; ids are `${runId}-${label}`, so a label is the id's suffix. */
export function labelOfId(runId: string, id: string | null): string | null {
  if (!id) return null;
  return id.startsWith(`${runId}-`) ? id.slice(runId.length + 1) : id;
}

/** The test_runs columns a TestRunRecord is built from (an entity, or a row of the state query). */
export type TestRunFields = Pick<
  TestRunEntity,
  'id' | 'label' | 'implementationId' | 'command' | 'exitCode' | 'passed' | 'failed' | 'errors' | 'durationS' | 'timedOut'
>;

/** A finished apply op that committed on the run branch (its result, less the keys the state does not need). */
export interface DiffRow {
  id: string;
  implementationId: string;
  result: unknown;
  text: string | null;
  chars: number | null;
}

/** A `read` workspace op: what a role asked for (written by the orchestrator) and what was read (by the test-runner). */
interface ReadRow {
  id: string;
  status: string;
  error: string | null;
  result: unknown;
}

/** One row, one JSON value per part of the state, keyed by entity property names. */
export interface BuildRunStateRow {
  proposals: Pick<ProposalEntity, 'id' | 'label' | 'callId' | 'round' | 'revisionOf' | 'status' | 'body'>[];
  critiques: Pick<CritiqueEntity, 'id' | 'label' | 'callId' | 'targetKind' | 'targetId' | 'verdict' | 'body'>[];
  implementations: Pick<ImplementationEntity, 'id' | 'label' | 'callId' | 'proposalId' | 'fixRound' | 'status' | 'applyError' | 'body'>[];
  test_runs: (TestRunFields & { output: string | null })[];
  synthesis: Pick<SynthesisEntity, 'id' | 'label' | 'callId' | 'partial' | 'body'> | null;
  tree: string[] | null;
  diffs: DiffRow[];
  questions: { role: string; question: string }[];
  reads: ReadRow[];
  used: UsageRow[];
  reserved: UsageRow[];
}

/**
 * Every part of a build's state rebuilt from its tables, in one statement (one parameter: the
 * run id). Not on the hot path: a step starts from the snapshot on the run row
 * (runs.workflow_state). This rebuilds the state of a run started before snapshots existed,
 * once, and is what the tests hold the snapshot to: a step's snapshot equals the state its
 * tables give. Column names are the migration's.
 */
export const BUILD_RUN_STATE = statement<BuildRunStateRow>()({
  text: `
SELECT
  (SELECT coalesce(json_agg(json_build_object(
            'id', p.id, 'label', p.label, 'callId', p.call_id, 'round', p.round,
            'revisionOf', p.revision_of, 'status', p.status, 'body', p.body) ORDER BY p.created_at, p.label), '[]')
     FROM proposals p WHERE p.run_id = $1) AS proposals,
  (SELECT coalesce(json_agg(json_build_object(
            'id', c.id, 'label', c.label, 'callId', c.call_id, 'targetKind', c.target_kind,
            'targetId', c.target_id, 'verdict', c.verdict, 'body', c.body) ORDER BY c.created_at, c.label), '[]')
     FROM critiques c WHERE c.run_id = $1) AS critiques,
  (SELECT coalesce(json_agg(json_build_object(
            'id', i.id, 'label', i.label, 'callId', i.call_id, 'proposalId', i.proposal_id, 'fixRound', i.fix_round,
            'status', i.status, 'applyError', i.apply_error, 'body', i.body) ORDER BY i.created_at, i.label), '[]')
     FROM implementations i WHERE i.run_id = $1) AS implementations,
  (SELECT coalesce(json_agg(json_build_object(
            'id', t.id, 'label', t.label, 'implementationId', t.implementation_id, 'command', t.command,
            'exitCode', t.exit_code, 'passed', t.passed, 'failed', t.failed, 'errors', t.errors,
            'durationS', t.duration_s, 'timedOut', t.timed_out, 'output', right(a.content, ${TAIL_BYTES}))
            ORDER BY t.created_at, t.label), '[]')
     FROM test_runs t LEFT JOIN artifacts a ON a.id = t.output_artifact_id WHERE t.run_id = $1) AS test_runs,
  (SELECT json_build_object('id', s.id, 'label', s.label, 'callId', s.call_id, 'partial', s.partial, 'body', s.body)
     FROM syntheses s WHERE s.run_id = $1 ORDER BY s.created_at DESC LIMIT 1) AS synthesis,
  (SELECT o.result -> 'tree' FROM workspace_ops o
    WHERE o.run_id = $1 AND o.status = 'done' AND jsonb_typeof(o.result -> 'tree') = 'array'
    ORDER BY o.finished_at DESC LIMIT 1) AS tree,
  (SELECT coalesce(json_agg(json_build_object(
            'id', o.id, 'implementationId', o.implementation_id, 'result', o.result - 'tree' - 'written' - 'artifact_ids',
            'text', left(a.content, ${DIFF_PROMPT_CHARS}), 'chars', char_length(a.content)) ORDER BY o.finished_at), '[]')
     FROM workspace_ops o LEFT JOIN artifacts a ON a.id = o.result ->> 'diff_artifact_id'
    WHERE o.run_id = $1 AND o.kind = 'apply' AND o.status = 'done' AND o.result ->> 'diff_artifact_id' IS NOT NULL) AS diffs,
  (SELECT coalesce(json_agg(json_build_object('role', q.raised_by_role, 'question', q.question) ORDER BY q.id), '[]')
     FROM open_questions q WHERE q.run_id = $1) AS questions,
  (SELECT coalesce(json_agg(json_build_object('id', o.id, 'status', o.status, 'error', o.error, 'result', o.result)
            ORDER BY o.created_at, o.id), '[]')
     FROM workspace_ops o WHERE o.run_id = $1 AND o.kind = 'read') AS reads,
  ${USAGE_COLUMNS_SQL}`,
  params: (runId: string): unknown[] => [runId],
});

/**
 * Rebuilds the workflow's view of a run from Postgres, inside the step's transaction (the
 * run row is already locked). Everything decide() may need is here; nothing else is read.
 */
export async function loadBuildRunState(em: EntityManager, run: RunEntity, now: Date): Promise<BuildRunState> {
  // Prepared: planning this statement cost about as much as running it (ten subqueries).
  const {
    rows: [row],
  } = await runStatement(em, BUILD_RUN_STATE, run.id);
  return buildRunStateFromRow(run, row, now);
}

/** loadBuildRunState for a row of BUILD_RUN_STATE the caller has already read (in the batch that took the lock). */
export function buildRunStateFromRow(run: RunEntity, stateRow: object, now: Date): BuildRunState {
  const runId = run.id;
  const row = stateRow as unknown as BuildRunStateRow;
  // Oldest first, so an implementation applied again (a rerun) keeps its latest commit.
  const diffs = new Map(row.diffs.map((d) => [d.implementationId, implementationDiff(d)]));
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
    workspace: { path: run.workspacePath, tree: row.tree ?? [] },
    proposals: row.proposals.map(
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
    critiques: row.critiques.map(
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
    implementations: row.implementations.map(
      (i): ImplementationRecord => ({
        id: i.id,
        label: i.label,
        callId: i.callId,
        proposalLabel: labelOfId(runId, i.proposalId),
        fixRound: i.fixRound,
        status: i.status as ImplementationRecord['status'],
        applyError: i.applyError,
        body: i.body as unknown as ImplementationRecord['body'],
        ...(diffs.has(i.id) ? { diff: diffs.get(i.id) } : {}),
      }),
    ),
    testRuns: row.test_runs.map((t) => testRunRecord(runId, t, t.output ?? '')),
    synthesis: row.synthesis
      ? ({
          id: row.synthesis.id,
          label: row.synthesis.label,
          callId: row.synthesis.callId,
          partial: row.synthesis.partial,
          body: row.synthesis.body as unknown as SynthesisRecord['body'],
        } satisfies SynthesisRecord)
      : null,
    openQuestions: row.questions.map((q) => ({ role: q.role as BuildRole, question: q.question })),
    fileReads: row.reads.map(fileReadRecord),
    usage: usageSnapshot(row.used, row.reserved, run.startedAt, now),
    counters: { ...(run.labelCounters ?? {}), call: run.callSeq },
  };
}

/** A read op as the workflow sees it; a row that is not a read request (or its answer) is an error naming the op. */
function fileReadRecord(o: ReadRow): FileReadRecord {
  const op = parseWorkspaceOp({ ...o, kind: 'read' });
  if (op.kind !== 'read') throw new Error('unreachable: parsed as a read op');
  const r = op.status === 'done' ? op.result : op.request;
  return {
    opId: o.id,
    label: r.label,
    role: r.role as BuildRole,
    callId: r.call_id,
    paths: r.paths,
    reason: r.reason ?? null,
    refused: r.refused ?? [],
    files: readOpFiles(op),
  };
}

/** A finished apply op's commit as the state holds it (the diff's beginning beside it); a half-recorded commit is an error naming the op. */
export function implementationDiff(d: DiffRow): ImplementationDiff {
  const parsed = ApplyOpCommit.safeParse(d.result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WorkspaceOpRowError(d.id, 'apply', ['result', ...issue.path.map(String)].join('.'), issue.message);
  }
  const r = parsed.data;
  return {
    source: r.workspace_source,
    branch: r.branch,
    baseCommit: r.base_commit,
    commit: r.commit,
    roundDiffstat: r.round_diffstat ?? [],
    diffstat: r.diffstat ?? [],
    artifactId: r.diff_artifact_id,
    text: d.text ?? '',
    truncated: Boolean(r.diff_truncated) || (d.chars ?? 0) > DIFF_PROMPT_CHARS,
  };
}

export function testRunRecord(runId: string, t: TestRunFields, output: string): TestRunRecord {
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

