import type { RunStatus, Stage } from '@roundtable/contracts';
import { reopenRun } from '../engine/resume';
import type { ProposalRecord } from './build-types';
import { callCritic, callEngineer, callProposer, callReviser, callReviewer, callSynthesizer, callValidator } from './build-calls';
import { secondReviewPending, validatorReviewOfLatest } from './second-review';
import { latestImplementation, latestProposal, type Step } from './build-step';
import { applyCritique } from './debate.stage';
import { alreadyRecorded, expectedLabel } from './build-definition';
import { closeSolo, isSolo } from './solo';

/** Resume: a halted, needs_input or failed run restarts where it stopped (or where the user says). */

export const BUILD_RESUMABLE: readonly RunStatus[] = ['halted', 'needs_input', 'failed'];

/**
 * Restarts a stopped run in the stage its halting decision left (seed status log, M3):
 * recorded work is reused, never re-billed — a critique already recorded for the current
 * proposal is applied, not re-run — and usage continues from what is recorded. With an
 * explicit stage (`rerun`), that stage's work is done again.
 */
export function onResume(step: Step, at: Stage, rerun: boolean, caps: Partial<Record<string, number>>): void {
  if (!reopenRun(step, BUILD_RESUMABLE, at, rerun, caps)) return;
  if (isSolo(step.state)) return resumeSolo(step, at, rerun);

  const proposal = latestProposal(step.state);
  const impl = latestImplementation(step.state);
  const critiqueOf = (p: ProposalRecord) =>
    [...step.state.critiques].reverse().find((c) => c.targetKind === 'proposal' && c.targetLabel === p.label);
  switch (at) {
    case 'INIT':
      step.commands.push({ kind: 'workspace.prepare', opId: step.opId() });
      return;
    case 'PROPOSE':
      return callProposer(step);
    case 'CRITIQUE': {
      if (!proposal) return callProposer(step);
      const recorded = critiqueOf(proposal);
      if (recorded && !rerun) return applyCritique(step, recorded, proposal);
      return callCritic(step, proposal);
    }
    case 'REVISE': {
      const critique = proposal && critiqueOf(proposal);
      if (!proposal || !critique) return proposal ? callCritic(step, proposal) : callProposer(step);
      return callReviser(step, proposal, critique);
    }
    case 'IMPLEMENT':
    case 'FIX': {
      if (impl && impl.status === 'pending' && !rerun) {
        step.commands.push({ kind: 'workspace.apply', opId: step.opId(), implementationLabel: impl.label });
        return;
      }
      const accepted = step.state.proposals.find((p) => p.status === 'accepted') ?? proposal;
      if (!accepted) return callProposer(step);
      return engineerAgain(step, accepted);
    }
    case 'TEST':
      return runTestsAgain(step);
    case 'REVIEW': {
      // Halted at the second review: the validator's review is paid for, only the reviewer is asked again.
      const review = validatorReviewOfLatest(step.state);
      if (impl && review && !rerun && secondReviewPending(step.state)) return callReviewer(step, impl, review);
      return impl ? callValidator(step, impl) : callSynthesizer(step);
    }
    default:
      // SYNTHESIZE, or a stage with nothing left to redo: the run ends with a fresh synthesis.
      if (step.state.stage !== 'SYNTHESIZE') step.go('SYNTHESIZE', `nothing to redo in ${at}; synthesizing`, []);
      return callSynthesizer(step);
  }
}

function runTestsAgain(step: Step): void {
  const impl = latestImplementation(step.state);
  if (!impl) return;
  const command = step.config.test_command ?? impl.body.test_command;
  step.commands.push({
    kind: 'tests.run',
    opId: step.opId(),
    implementationLabel: impl.label,
    testLabel: `T${step.bump('T')}`,
    command,
    timeoutS: step.config.test_timeout_s,
  });
  step.emit('tests_started', { implementation: impl.label, command });
}

/**
 * A solo run (solo.ts) has only the engineer, the tests and the fact-only close: a stage of the
 * debate is where the engineer starts, and review or synthesis is the close on the last test run.
 */
function resumeSolo(step: Step, at: Stage, rerun: boolean): void {
  const impl = latestImplementation(step.state);
  switch (at) {
    case 'INIT':
      step.commands.push({ kind: 'workspace.prepare', opId: step.opId() });
      return;
    case 'PROPOSE':
    case 'CRITIQUE':
    case 'REVISE':
    case 'IMPLEMENT':
    case 'FIX':
      if (impl && impl.status === 'pending' && !rerun) {
        step.commands.push({ kind: 'workspace.apply', opId: step.opId(), implementationLabel: impl.label });
        return;
      }
      if (step.state.stage !== 'IMPLEMENT' && step.state.stage !== 'FIX') step.go('IMPLEMENT', `solo pipeline: there is no ${at}; the engineer works from the objective and requirements`);
      return engineerAgain(step, null);
    case 'TEST':
      return runTestsAgain(step);
    default:
      return closeSolo(step, step.state.testRuns[step.state.testRuns.length - 1]);
  }
}

/**
 * The engineer asked again on a resume. When the label it would answer under is on record (the
 * fix round's implementation was rejected, or the stage is re-run), the answer is the next fix
 * round's: a reply under a recorded label is taken for a duplicate and changes nothing, and the
 * run would wait for ever.
 */
function engineerAgain(step: Step, proposal: ProposalRecord | null): void {
  while (step.state.fixRound > 0 && alreadyRecorded(step.state, 'engineer', expectedLabel(step, 'engineer'))) step.state.fixRound += 1;
  callEngineer(step, proposal);
}
