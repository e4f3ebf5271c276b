import type { BuildRunState, SynthesisRecord, TestRunRecord } from './build-types';
import { callEngineer } from './build-calls';
import { lockCriteriaOf } from './debate.stage';
import type { Step } from './build-step';
import { endRun, mergeOrEnd } from './gates.stage';

/**
 * The solo pipeline (`pipeline: solo`, issue 25): the evaluation's baseline, "the best single
 * model alone". The engineer works from the objective and the requirements (locked as the
 * acceptance criteria at start, as the team locks its criteria after the debate), the tests run,
 * the existing fix loop goes on while they fail, and the run closes fact-only: no proposer,
 * critic, reviser, validator, reviewer or synthesizer is ever asked. Budget, retries, repair,
 * fallback, halts, resume and cancel are the engine's and the team's, unchanged; a halt closes
 * fact-only through the definition's `nothingToClose`.
 */

/** Why a solo run's close has no model call: every fact-only reason of a solo run starts with it. */
export const SOLO_NO_SYNTHESIZER = 'the solo pipeline has no synthesizer';

export function isSolo(state: Pick<BuildRunState, 'config'>): boolean {
  return state.config.pipeline === 'solo';
}

/** After the workspace is ready: the requirements become the criteria, and the engineer is asked. */
export function startSolo(step: Step, workspaceReady: string): void {
  const n = step.config.requirements.length;
  lockCriteriaOf(step, step.config.requirements);
  step.go('IMPLEMENT', `${workspaceReady}; solo pipeline: no debate, the engineer works from the objective and ${n} requirement${n === 1 ? '' : 's'} (locked as the acceptance criteria)`);
  callEngineer(step, null);
}

/** What the last test run says, for the fact-only close: passed, or failed with the fix rounds used. */
export function soloOutcome(step: Step, run: TestRunRecord | undefined): string {
  const { max_fix_rounds } = step.config.budget;
  const rounds = `${step.state.fixRound} of ${max_fix_rounds} fix round${max_fix_rounds === 1 ? '' : 's'} used`;
  if (!run) return `no test run was recorded (${rounds})`;
  const r = run.result;
  const counts = `${r.passed} passed, ${r.failed} failed, ${r.errors} errors${r.timed_out ? ', timed out' : ''}`;
  if (r.exit_code === 0) return `${run.label} passed (exit 0; ${counts}) on ${run.implementationLabel}, ${rounds}`;
  // A resume may close a run its halt stopped before the fix rounds ran out: say only what is so.
  const usedUp = step.state.fixRound >= max_fix_rounds ? ` and the fix rounds are used up (${rounds})` : `, ${rounds}`;
  return `${run.label} failed (exit ${r.exit_code}; ${counts}) on ${run.implementationLabel}${usedUp}`;
}

/**
 * The end of a solo run that was not halted: the fact-only report (a synthesis row no model
 * wrote), then the end a team run reaches after its synthesis — done, with an autonomy-3 merge
 * refused as unsolved (a fact-only report is never a synthesizer's ACCEPT) and a greenfield
 * branch exported. Passed or not, the run ends `done`, as a team run whose fix rounds ran out
 * does; the report and the solved checks say whether the tests passed.
 */
export function closeSolo(step: Step, run: TestRunRecord | undefined): void {
  const label = step.closingLabel('S', step.state.synthesis?.label);
  const record: SynthesisRecord = { id: step.id(label), label, callId: null, partial: false, body: null };
  step.state.synthesis = record;
  step.records.push({ kind: 'synthesis', record });
  step.emit('synthesis_recorded', { label, verdict: null, partial: false });
  if (mergeOrEnd(step)) return;
  endRun(step, `fact-only report: ${SOLO_NO_SYNTHESIZER}; ${soloOutcome(step, run)}`);
}
