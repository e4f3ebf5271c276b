import type { Review } from '@roundtable/contracts';
import type { BuildRunState } from './build-types';
import { latestImplementation } from './build-step';
import { unresolvedCriticisms } from './unresolved-criticisms';

/**
 * "Solved" as four observable checks (seed status log, decision of 2026-09-26), each true or
 * false with the evidence it rests on: computed from the records, never asked of a model. The
 * api shows them, the report lists them, and autonomy 3 merges only a run that passes all four.
 */
export type SolvedCheckName = 'criteria_satisfied' | 'tests_passed' | 'no_open_blocker' | 'synthesizer_accept';

export interface SolvedCheck {
  check: SolvedCheckName;
  ok: boolean;
  /** What the check read: the review's citations, the test run's counts, the blockers, the verdict. */
  evidence: string;
}

export const SOLVED_CHECK_TEXT: Record<SolvedCheckName, string> = {
  criteria_satisfied: 'every requirement satisfied with cited evidence',
  tests_passed: 'tests executed and passed',
  no_open_blocker: 'no open blocker',
  synthesizer_accept: 'synthesizer ACCEPT',
};

type SolvedInput = Pick<BuildRunState, 'criteria' | 'critiques' | 'implementations' | 'testRuns' | 'synthesis' | 'proposals' | 'unresolved' | 'openQuestions'>;

function criteriaSatisfied(state: SolvedInput): SolvedCheck {
  const review = [...state.critiques].reverse().find((c) => c.targetKind === 'implementation');
  if (!review) return { check: 'criteria_satisfied', ok: false, evidence: 'no review of the implementation was recorded' };
  const checks = (review.body as Review).requirement_checks ?? [];
  const failing = checks.filter((c) => !c.satisfied);
  if (failing.length) return { check: 'criteria_satisfied', ok: false, evidence: `${review.label}: not satisfied: ${failing.map((c) => `${c.requirement} (${c.evidence})`).join('; ')}` };
  if (!checks.length) return { check: 'criteria_satisfied', ok: false, evidence: `${review.label} checked no requirement` };
  return { check: 'criteria_satisfied', ok: true, evidence: `${review.label}: ${checks.map((c) => `${c.requirement}: ${c.evidence}`).join('; ')}` };
}

function testsPassed(state: SolvedInput): SolvedCheck {
  const run = state.testRuns[state.testRuns.length - 1];
  const impl = latestImplementation(state as BuildRunState);
  if (!run) return { check: 'tests_passed', ok: false, evidence: 'the tests were never run' };
  if (impl && run.implementationLabel !== impl.label) {
    return { check: 'tests_passed', ok: false, evidence: `${run.label} tested ${run.implementationLabel}, not the latest implementation ${impl.label}` };
  }
  const r = run.result;
  const counts = `${run.label} (${r.command}): ${r.passed} passed, ${r.failed} failed, ${r.errors} errors, exit code ${r.exit_code}${r.timed_out ? ', timed out' : ''}`;
  const ok = r.exit_code === 0 && r.failed === 0 && r.errors === 0 && !r.timed_out && r.passed > 0;
  return { check: 'tests_passed', ok, evidence: r.passed === 0 ? `${counts}; no test passed` : counts };
}

function noOpenBlocker(state: SolvedInput): SolvedCheck {
  const review = [...state.critiques].reverse().find((c) => c.targetKind === 'implementation');
  const reviewBlockers = (review?.body.problems ?? []).filter((p) => p.severity === 'blocker').map((p) => `${review!.label}: ${p.description}`);
  const debateBlockers = unresolvedCriticisms(state).filter((u) => u.problem.startsWith('blocker:')).map((u) => `${u.source}: ${u.problem}`);
  const questions = (state.openQuestions ?? []).filter((q) => !q.answer).map((q) => `unanswered question: ${q.question}`);
  const open = [...reviewBlockers, ...debateBlockers, ...questions];
  return open.length
    ? { check: 'no_open_blocker', ok: false, evidence: open.join('; ') }
    : { check: 'no_open_blocker', ok: true, evidence: review ? `no blocker in ${review.label}, none left open in the debate, no question unanswered` : 'no blocker recorded' };
}

function synthesizerAccept(state: SolvedInput): SolvedCheck {
  const s = state.synthesis;
  if (!s?.body) return { check: 'synthesizer_accept', ok: false, evidence: s ? `${s.label} was written without a model (fact-only)` : 'no synthesis yet' };
  const v = s.body.overall_verdict;
  const ok = v === 'ACCEPT' && !s.partial;
  const disagreements = s.body.disagreements.length;
  return { check: 'synthesizer_accept', ok, evidence: `${s.label}: ${v}${s.partial ? ' (partial, after a halt)' : ''}, ${disagreements} disagreement${disagreements === 1 ? '' : 's'} listed` };
}

export function solvedChecks(state: SolvedInput): SolvedCheck[] {
  return [criteriaSatisfied(state), testsPassed(state), noOpenBlocker(state), synthesizerAccept(state)];
}

/** The first check that fails, in the words a refusal names it; null when the run is solved. */
export function unsolvedBecause(checks: readonly SolvedCheck[]): string | null {
  const failing = checks.filter((c) => !c.ok);
  return failing.length ? failing.map((c) => `"${SOLVED_CHECK_TEXT[c.check]}" fails: ${c.evidence}`).join('; ') : null;
}
