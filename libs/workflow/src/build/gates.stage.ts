import { AUTONOMOUS_APPROVER, type AcceptanceCriterion } from '@roundtable/contracts';
import { answerQuestion, unanswered, type AnswerEvent } from '../engine/answers';
import { awaitApproval, closeGate, gateDecided, type ApprovalEvent, type CriteriaEdits } from '../engine/gates';
import { reopenRun } from '../engine/resume';
import type { MergeOutcome, ProposalRecord } from './build-types';
import { callEngineer, callReviser } from './build-calls';
import { haltBuild } from './build-definition';
import { latestImplementation, latestProposal, type Step } from './build-step';
import { solvedChecks, unsolvedBecause } from './solved';

/**
 * The build's gates and answers (issue 21), on the engine's (engine/gates.ts, answers.ts):
 *
 * - `criteria`: once the criteria are locked, before anything is implemented. Approved (as
 *   they were, or edited: added, dropped, reworded), the engineer and the validator see the
 *   approved ones; refused, the run halts and the synthesizer says what was refused.
 * - `merge`: once the synthesis is in, before the run branch enters the original repository.
 *   Approved, the test-runner merges it (the merge op); refused, the run ends done, unmerged.
 *   At autonomy 3 with no merge gate, a run that passes the four "solved" checks is merged
 *   without a person, and one that does not is not, naming the check.
 * - an answer to an open question: when it was the last one a needs_input run waited on, the
 *   run goes on where it stopped (the reviser, with the answers in its prompt).
 */

// ---- the criteria gate

/** Where the build would implement: true when the project asks for the criteria gate, and the run now waits there. */
export function criteriaGate(step: Step, proposal: ProposalRecord, why: string, refs: string[]): boolean {
  if (!step.config.approvals.includes('criteria')) return false;
  awaitApproval(step, 'criteria', { proposal: proposal.label, criteria: step.state.criteria ?? [] }, why, refs);
  return true;
}

/** The approver's criteria against the locked ones: what was added, dropped and reworded, and the list with new ids. */
export function criteriaEdits(locked: readonly AcceptanceCriterion[], approved: readonly { id?: string; text: string }[]): { criteria: AcceptanceCriterion[]; edits: CriteriaEdits } {
  const byId = new Map(locked.map((c) => [c.id, c]));
  let next = locked.reduce((n, c) => Math.max(n, Number(/^AC(\d+)$/.exec(c.id)?.[1] ?? 0)), 0);
  const criteria: AcceptanceCriterion[] = [];
  const edits: CriteriaEdits = { added: [], dropped: [], reworded: [] };
  for (const entry of approved) {
    const text = entry.text.trim();
    const was = entry.id ? byId.get(entry.id) : undefined;
    if (was) {
      criteria.push({ id: was.id, text });
      if (was.text !== text) edits.reworded.push({ id: was.id, from: was.text, to: text });
    } else {
      const added = { id: `AC${++next}`, text };
      criteria.push(added);
      edits.added.push(added);
    }
  }
  const kept = new Set(criteria.map((c) => c.id));
  edits.dropped = locked.filter((c) => !kept.has(c.id));
  return { criteria, edits };
}

function onCriteriaDecision(step: Step, event: ApprovalEvent): void {
  if (event.decision === 'reject') {
    closeGate(step, event);
    return haltBuild(step, `the criteria were refused at the criteria gate by ${event.approver}${event.note ? `: ${event.note}` : ''}`);
  }
  const locked = step.state.criteria ?? [];
  const changed = event.criteria ? criteriaEdits(locked, event.criteria) : null;
  const edited = changed && changed.edits.added.length + changed.edits.dropped.length + changed.edits.reworded.length > 0;
  closeGate(step, event, edited ? changed.edits : undefined);
  if (edited) {
    step.state.criteria = changed.criteria;
    step.emit('criteria_locked', { criteria: changed.criteria });
  }
  const proposal = step.state.proposals.find((p) => p.status === 'accepted') ?? latestProposal(step.state)!;
  step.go('IMPLEMENT', `criteria approved by ${event.approver}${edited ? ' with edits' : ''}`, [proposal.label]);
  callEngineer(step, proposal);
}

// ---- the merge gate, and autonomy 3

/** What the approver at the merge gate looks at: the branch, its diff, the last test run, the synthesis, the checks. */
function mergeSubject(step: Step): Record<string, unknown> {
  const impl = latestImplementation(step.state);
  const run = step.state.testRuns[step.state.testRuns.length - 1];
  const s = step.state.synthesis;
  return {
    branch: impl?.diff?.branch ?? null,
    base_commit: impl?.diff?.baseCommit ?? null,
    commit: impl?.diff?.commit ?? null,
    into: step.config.merge?.into ?? null,
    strategy: step.config.merge?.strategy ?? null,
    diff_artifact_id: impl?.diff?.artifactId ?? null,
    diffstat: impl?.diff?.diffstat ?? [],
    tests: run ? { label: run.label, passed: run.result.passed, failed: run.result.failed, errors: run.result.errors, exit_code: run.result.exit_code } : null,
    synthesis: s ? { label: s.label, verdict: s.body?.overall_verdict ?? null } : null,
    solved: solvedChecks(step.state),
  };
}

/** Why this run's branch cannot be merged at all (nothing committed, not a worktree), or null. */
function unmergeable(step: Step): { reason: string; code: string } | null {
  const impl = latestImplementation(step.state);
  if (!impl || impl.status !== 'applied' || !impl.diff) return { reason: 'nothing was committed on a run branch, so there is nothing to merge', code: 'nothing_to_merge' };
  if (impl.diff.source !== 'worktree') {
    return { reason: `the run worked on a ${impl.diff.source === 'copy' ? 'copy of a directory that is not a git repository' : 'greenfield workspace'}: its branch ${impl.diff.branch} is offered as it is, never merged`, code: 'not_git' };
  }
  return null;
}

/**
 * After a valid synthesis: the merge gate, an autonomy-3 merge, or nothing (the run ends).
 * True when the run goes on to MERGE (it waits at the gate, or the merge op is queued).
 */
export function mergeOrEnd(step: Step): boolean {
  const merge = step.config.merge;
  const gated = step.config.approvals.includes('merge');
  if (!merge || (!gated && step.config.autonomy !== 3)) return false;
  const cannot = unmergeable(step);
  if (cannot) {
    refuseMerge(step, { merged: false, into: merge.into, strategy: merge.strategy, commit: null, previous: null, ...cannot });
    return false;
  }
  if (gated) {
    step.go('MERGE', `synthesis recorded; the run branch waits for a person's approval before it is merged into ${merge.into}`);
    awaitApproval(step, 'merge', mergeSubject(step), `merge into ${merge.into} (${merge.strategy})`);
    return true;
  }
  const why = unsolvedBecause(solvedChecks(step.state));
  if (why) {
    refuseMerge(step, { merged: false, into: merge.into, strategy: merge.strategy, commit: null, previous: null, reason: `autonomy 3 merges only a solved run: ${why}`, code: 'not_solved' });
    return false;
  }
  step.go('MERGE', `autonomy 3: the run is solved (all four checks hold); merging into ${merge.into}`);
  queueMerge(step, AUTONOMOUS_APPROVER);
  return true;
}

function queueMerge(step: Step, approvedBy: string): void {
  const merge = step.config.merge!;
  const impl = latestImplementation(step.state)!;
  step.commands.push({
    kind: 'workspace.merge',
    opId: step.opId(),
    into: merge.into,
    strategy: merge.strategy,
    message: `roundtable: merge run ${step.runId} (${impl.label}) into ${merge.into}\n\n${step.config.objective}\n\nApproved-by: ${approvedBy}`,
    approvedBy,
  });
}

function onMergeDecision(step: Step, event: ApprovalEvent): void {
  closeGate(step, event);
  if (event.decision === 'approve') return queueMerge(step, event.approver);
  endRun(step, `the merge was refused by ${event.approver}${event.note ? `: ${event.note}` : ''}; the run branch is left unmerged`);
}

/** The test-runner's answer to the merge op: merged, or refused with the original untouched. */
export function onMergeFinished(step: Step, outcome: MergeOutcome): void {
  if (step.state.stage !== 'MERGE') return;
  if (outcome.merged) {
    step.state.merge = outcome;
    step.emit('merge_completed', { into: outcome.into, strategy: outcome.strategy, commit: outcome.commit ?? '', previous: outcome.previous ?? '' });
    return endRun(step, `merged into ${outcome.into} (${outcome.strategy}) at ${outcome.commit}`);
  }
  refuseMerge(step, outcome);
  endRun(step, `not merged: ${outcome.reason ?? 'refused'}`);
}

/** Nothing was merged: the outcome kept for the report, and merge_refused with the reason. */
function refuseMerge(step: Step, outcome: MergeOutcome): void {
  step.state.merge = outcome;
  step.emit('merge_refused', { reason: outcome.reason ?? 'the merge was refused', code: outcome.code ?? 'refused' });
}

/** The run ends done with its synthesis' verdict (a merge, or none, is the last thing it did). */
export function endRun(step: Step, why: string): void {
  step.go('DONE', why, step.state.synthesis ? [step.state.synthesis.label] : []);
  step.state.status = 'done';
  // A branch with no original to merge into (greenfield, a copied directory) is offered as a bundle and a patch.
  const source = [...step.state.implementations].reverse().find((i) => i.diff)?.diff?.source;
  if (source === 'empty' || source === 'copy') step.commands.push({ kind: 'workspace.export', opId: step.opId() });
  const body = step.state.synthesis?.body;
  step.emit('run_completed', { status: 'done', verdict: body?.overall_verdict ?? null, confidence: body?.confidence ?? null });
}

// ---- decisions and answers, as they arrive

export function onApproval(step: Step, event: ApprovalEvent): void {
  if (!gateDecided(step, event)) return;
  if (event.gate === 'criteria') return onCriteriaDecision(step, event);
  if (event.gate === 'merge') return onMergeDecision(step, event);
}

/**
 * A person's answer. When it was the last open question of a run stopped as needs_input, the
 * run goes on where the question stopped it: the reviser revises the latest proposal against
 * its critique, with every answer in its prompt — one more revision round, recorded as a raised
 * cap. Nothing already recorded is asked again.
 */
export function onAnswer(step: Step, event: AnswerEvent): void {
  const index = answerQuestion(step, event);
  if (index === null) return;
  step.records.push({ kind: 'question_answer', index, answer: event.answer, answeredBy: event.answeredBy });
  if (step.state.status !== 'needs_input' || unanswered(step.state.openQuestions ?? []) > 0) return;
  const proposal = latestProposal(step.state);
  const critique = proposal && [...step.state.critiques].reverse().find((c) => c.targetKind === 'proposal' && c.targetLabel === proposal.label);
  if (!proposal || !critique) return;
  const rounds = Math.max(step.config.budget.max_rounds, step.state.round + 1);
  if (!reopenRun(step, ['needs_input'], 'REVISE', false, rounds > step.config.budget.max_rounds ? { max_rounds: rounds } : {})) return;
  step.state.round += 1;
  callReviser(step, proposal, critique);
}
