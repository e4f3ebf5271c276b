import { TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { answerQuestion } from '../engine/answers';
import { leaveGate } from '../engine/gates';
import { onReply } from '../engine/replies';
import { cancelRun, endStep } from '../engine/step-end';
import { onApproval, onStart } from './draft.stage';
import { experimentDefinition, haltExperiment } from './experiment-definition';
import { ExperimentStep } from './experiment-step';
import type { ExperimentEvent, ExperimentRunState, ExperimentStepContext, ExperimentStepResult } from './experiment-types';
import { onMethodRan } from './method.stage';
import { onExperimentResume } from './resume';

/**
 * The experiment workflow (issue 24) as one pure step, a definition on the same engine as the
 * build and the panel (../engine: the ledger, replies, repair, fallback, halting, the one
 * closing call, gates, answers, resume).
 *
 * INIT → (DRAFT → LOCK: a person approves the draft) → RUN (the method's command in the sandbox
 * at the pinned commit) → INTERPRET (the interpreter reads each criterion) → REVIEW (the critic,
 * another provider, author-blind) → DONE, decided by code: KILL if any failure criterion holds,
 * else PASS if every success criterion holds, else INCONCLUSIVE.
 */
export function decideExperimentRun(state: ExperimentRunState, event: ExperimentEvent, ctx: ExperimentStepContext): ExperimentStepResult {
  const step = new ExperimentStep(state, ctx);
  if (event.type === 'resume') {
    onExperimentResume(step, event.at, event.rerun, event.caps ?? {});
    return step.result();
  }
  // An answer (to the open question a disagreeing critic raised) is taken whatever the status; the decision stands.
  if (event.type === 'answer') {
    answerQuestion(step, event);
    return step.result();
  }
  if (TERMINAL_RUN_STATUSES.includes(state.status)) return step.result();
  switch (event.type) {
    case 'start':
      onStart(step);
      break;
    case 'agent_call_finished':
      onReply(step, experimentDefinition, event.call);
      break;
    case 'method_ran':
      onMethodRan(step, event.opId, event.outcome);
      break;
    case 'approval':
      onApproval(step, event);
      break;
    case 'halt':
      leaveGate(step);
      haltExperiment(step, event.reason);
      break;
    case 'cancel':
      cancelRun(step, event.reason);
      return step.result();
  }
  return endStep(step);
}

export const experimentWorkflow = { decide: decideExperimentRun } as const;
