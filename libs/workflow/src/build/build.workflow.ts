import { TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { warnAboutBudget } from '../engine/ledger';
import type { BuildEvent, BuildRunState, StepContext, StepResult } from './build-types';
import { Step } from './build-step';
import { onCallFinished } from './build-replies';
import { onFilesRead } from './file-reads';
import { onFilesApplied, onFilesRejected, onTestsFailedToRun, onTestsFinished } from './implement.stage';
import { onResume } from './resume';
import { onStart, onWorkspaceFailed, onWorkspacePrepared } from './workspace.stage';

/**
 * The build workflow as one pure step: decide(state, event) → what the orchestrator writes and
 * enqueues. Seed §8 is the transition table; every stage change is a recorded Decision plus a
 * stage_changed event, and every agent call goes through the engine's ledger (budget-checked
 * before it is queued). The stages' rules live in *.stage.ts; the call lifecycle in ../engine.
 */
export function decide(state: BuildRunState, event: BuildEvent, ctx: StepContext): StepResult {
  const step = new Step(state, ctx);
  if (event.type === 'resume') {
    onResume(step, event.at, event.rerun, event.caps ?? {});
    return step.result();
  }
  // A finished run is history: late replies, test results and cancels change nothing.
  if (TERMINAL_RUN_STATUSES.includes(state.status)) return step.result();

  switch (event.type) {
    case 'start':
      onStart(step);
      break;
    case 'workspace_prepared':
      onWorkspacePrepared(step, event.path, event.tree);
      break;
    case 'workspace_failed':
      onWorkspaceFailed(step, event.error);
      break;
    case 'agent_call_finished':
      onCallFinished(step, event.call);
      break;
    case 'files_applied':
      onFilesApplied(step, event.implementationLabel, event.tree);
      break;
    case 'files_rejected':
      onFilesRejected(step, event.implementationLabel, event.error);
      break;
    case 'files_read':
      onFilesRead(step, event.opId, event.files);
      break;
    case 'tests_finished':
      onTestsFinished(step, event.testRun);
      break;
    case 'tests_failed_to_run':
      onTestsFailedToRun(step, event.error);
      break;
    case 'cancel':
      step.state.status = 'cancelled';
      step.emit('run_cancelled', { reason: event.reason ?? null });
      return step.result();
  }

  if (step.touched) warnAboutBudget(step);
  return step.result();
}

export const buildWorkflow = { decide } as const;
