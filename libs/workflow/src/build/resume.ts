import type { RunStatus, Stage } from '@roundtable/contracts';
import { reopenRun } from '../engine/resume';
import type { ProposalRecord } from './build-types';
import { callCritic, callEngineer, callProposer, callReviser, callReviewer, callSynthesizer, callValidator } from './build-calls';
import { secondReviewPending, validatorReviewOfLatest } from './second-review';
import { latestImplementation, latestProposal, type Step } from './build-step';
import { applyCritique } from './debate.stage';

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
      return callEngineer(step, accepted);
    }
    case 'TEST': {
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
      return;
    }
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

