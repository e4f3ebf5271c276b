import { PREREGISTRATION_GATE, type ExperimentStage, type RunStatus } from '@roundtable/contracts';
import { awaitApproval } from '../engine/gates';
import { reopenRun } from '../engine/resume';
import { askOrHalt } from './experiment-definition';
import type { ExperimentStep } from './experiment-step';
import { finishDecided } from './interpret.stage';
import { startMethod } from './method.stage';

/**
 * A halted experiment resumes at what is missing, with the caps raised: the draft, the gate, the
 * method (never twice: a result is stored once), the reading or the review. A failed one (its
 * method gave no result) is not resumed: it is run again (POST /v1/experiments/:id/run).
 */
export const EXPERIMENT_RESUMABLE: readonly RunStatus[] = ['halted'];

export function onExperimentResume(step: ExperimentStep, at: ExperimentStage, rerun: boolean, caps: Partial<Record<string, number>>): void {
  if (!reopenRun(step, EXPERIMENT_RESUMABLE, at, rerun, caps)) return;
  const s = step.state;
  s.outcome = null;
  if (!s.preregistration && !s.draft) {
    step.go('DRAFT', 'resumed: the proposer drafts the preregistration');
    askOrHalt(step, 'draft');
  } else if (!s.preregistration) {
    step.go('LOCK', 'resumed: the draft still waits for a person');
    awaitApproval(step, PREREGISTRATION_GATE, { experiment_id: step.config.experiment_id, preregistration: s.draft!.body, draft_from: step.config.draft_from ?? null }, 'resumed at the gate');
  } else if (!s.result) {
    startMethod(step, 'resumed: the method runs at the pinned commit');
  } else if (!s.interpretation) {
    step.go('INTERPRET', 'resumed: the interpreter reads the criteria');
    askOrHalt(step, 'interpret');
  } else if (!s.review) {
    step.go('REVIEW', 'resumed: the critic reviews the reading');
    askOrHalt(step, 'review');
  } else {
    finishDecided(step, 'done', []);
  }
}
