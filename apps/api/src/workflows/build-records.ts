import type { Critique, Implementation, Problem, Review } from '@roundtable/contracts';
import type { RunEntity } from '@roundtable/persistence';
import { buildStateOf, emptyUsage, type BuildRunState, type CritiqueRecord, type ImplementationRecord } from '@roundtable/workflow';
import type { BuildRecords, ImplementationItem } from '@roundtable/contracts';

/** A build run's state as the API reads it: the snapshot and the row's columns (usage is not needed to describe it). */
export function buildStateOfRun(run: RunEntity): BuildRunState {
  return buildStateOf(run, emptyUsage());
}

const problemsOf = (ps: readonly Problem[] | undefined) => (ps ?? []).map((p) => ({ severity: p.severity, description: p.description, location: p.location ?? null }));

function implementationItem(i: ImplementationRecord): ImplementationItem {
  const body: Implementation = i.body;
  return {
    label: i.label,
    call_id: i.callId,
    proposal_label: i.proposalLabel,
    fix_round: i.fixRound,
    status: i.status,
    apply_error: i.applyError,
    files: body.files.map((f) => ({ path: f.path, bytes: Buffer.byteLength(f.content, 'utf8') })),
    deleted: body.deleted ?? [],
    test_command: body.test_command,
    notes: body.notes,
    assumptions: body.assumptions,
    known_gaps: body.known_gaps,
    commit: i.diff
      ? {
          source: i.diff.source,
          branch: i.diff.branch,
          base_commit: i.diff.baseCommit,
          commit: i.diff.commit,
          round_diffstat: i.diff.roundDiffstat,
          diffstat: i.diff.diffstat,
          diff_truncated: i.diff.truncated,
        }
      : null,
  };
}

const isReview = (c: CritiqueRecord) => c.targetKind === 'implementation';

/**
 * GET /v1/runs/:id/records for a build run: the snapshot's records as the run page shows them.
 * The critic's verdicts and the validator's share one list in the state (critiques, C… and R…);
 * here they are apart, by what they judged, as each has its own fields.
 */
export function buildRecordsView(run: RunEntity): BuildRecords {
  const s = buildStateOfRun(run);
  const body = s.synthesis?.body ?? null;
  return {
    workflow: 'build',
    acceptance_criteria: s.criteria,
    proposals: s.proposals.map((p) => ({
      label: p.label,
      call_id: p.callId,
      round: p.round,
      revision_of: p.revisionOf,
      status: p.status,
      claim: p.body.claim,
      approach: p.body.approach,
      assumptions: p.body.assumptions,
      evidence: p.body.evidence,
      risks: p.body.risks,
      tests_required: p.body.tests_required,
      responses_to_criticism: (p.body.responses_to_criticism ?? []).map((r) => ({ problem: r.problem, action: r.action, reason: r.reason })),
      confidence: p.body.confidence,
    })),
    critiques: s.critiques
      .filter((c) => !isReview(c))
      .map((c) => {
        const b = c.body as Critique;
        return {
          label: c.label,
          call_id: c.callId,
          target_label: c.targetLabel,
          verdict: c.verdict,
          problems: problemsOf(b.problems),
          counterarguments: b.counterarguments ?? [],
          tests_required: b.tests_required ?? [],
          confidence: b.confidence,
        };
      }),
    implementations: s.implementations.map(implementationItem),
    test_runs: s.testRuns.map((t) => ({
      label: t.label,
      implementation_label: t.implementationLabel,
      command: t.result.command,
      exit_code: t.result.exit_code,
      passed: t.result.passed,
      failed: t.result.failed,
      errors: t.result.errors,
      duration_s: t.result.duration_s,
      timed_out: t.result.timed_out ?? false,
      output_tail: t.result.stdout_tail,
    })),
    reviews: s.critiques.filter(isReview).map((c) => {
      const b = c.body as Review;
      return {
        label: c.label,
        call_id: c.callId,
        target_label: c.targetLabel,
        verdict: c.verdict,
        requirement_checks: (b.requirement_checks ?? []).map((r) => ({ requirement: r.requirement, satisfied: r.satisfied, evidence: r.evidence })),
        problems: problemsOf(b.problems),
        confidence: b.confidence,
      };
    }),
    synthesis: s.synthesis
      ? {
          label: s.synthesis.label,
          call_id: s.synthesis.callId,
          partial: s.synthesis.partial,
          what_was_built: body?.what_was_built ?? null,
          test_summary: body?.test_summary ?? null,
          remaining_risks: body?.remaining_risks ?? [],
          recommended_next_experiment: body?.recommended_next_experiment ?? null,
          overall_verdict: body?.overall_verdict ?? null,
          confidence: body?.confidence ?? null,
        }
      : null,
    disagreements: (body?.disagreements ?? []).map((d) => ({
      topic: d.topic,
      positions: d.positions.map((p) => ({ agent_role: p.agent_role, position: p.position })),
      resolved: d.resolved,
      resolution: d.resolution ?? null,
    })),
    open_questions: (s.openQuestions ?? []).map((q) => ({ role: q.role, question: q.question })),
  };
}
