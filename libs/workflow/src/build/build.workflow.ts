import { TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { cancelRun, endStep } from '../engine/step-end';
import type { BuildEvent, BuildRunState, StepContext, StepResult } from './build-types';
import { Step } from './build-step';
import { onReply } from '../engine/replies';
import { buildDefinition, haltBuild } from './build-definition';
import { onFilesRead } from './file-reads';
import { onFilesApplied, onFilesRejected, onTestsFailedToRun, onTestsFinished } from './implement.stage';
import { onResume } from './resume';
import { leaveGate } from '../engine/gates';
import { onAnswer, onApproval, onMergeFinished } from './gates.stage';
import { onStart, onWorkspaceFailed, onWorkspacePrepared } from './workspace.stage';
import { onToolsRan } from './tool-loop';

/**
 * The build workflow as one pure step: decide(state, event) → what the orchestrator writes and
 * enqueues. Seed §8 is the transition table; every stage change is a recorded Decision plus a
 * stage_changed event, and every agent call goes through the engine's ledger (budget-checked
 * before it is queued). The stages' rules live in *.stage.ts; the call lifecycle in ../engine.
 */

type Handler<T extends BuildEvent['type']> = (step: Step, event: Extract<BuildEvent, { type: T }>) => void;

/** What each event does to a running or waiting run (resume, answers, cancel and the reconciler's halt are handled before this table). */
const ON: { [T in Exclude<BuildEvent['type'], 'resume' | 'cancel' | 'halt' | 'answer'>]: Handler<T> } = {
  start: (step) => onStart(step),
  workspace_prepared: (step, e) => onWorkspacePrepared(step, e.path, e.tree),
  workspace_failed: (step, e) => onWorkspaceFailed(step, e.error),
  agent_call_finished: (step, e) => onReply(step, buildDefinition, e.call),
  files_applied: (step, e) => onFilesApplied(step, e.implementationLabel, e.tree, e.diff),
  files_rejected: (step, e) => onFilesRejected(step, e.implementationLabel, e.error),
  files_read: (step, e) => onFilesRead(step, e.opId, e.files),
  tools_ran: (step, e) => onToolsRan(step, e.opId, e.results, e.changes),
  tests_finished: (step, e) => onTestsFinished(step, e.testRun),
  tests_failed_to_run: (step, e) => onTestsFailedToRun(step, e.error),
  approval: (step, e) => onApproval(step, e),
  merge_finished: (step, e) => onMergeFinished(step, e.outcome),
};

export function decide(state: BuildRunState, event: BuildEvent, ctx: StepContext): StepResult {
  const step = new Step(state, ctx);
  if (event.type === 'resume') {
    onResume(step, event.at, event.rerun, event.caps ?? {});
    return step.result();
  }
  // An answer is taken whatever the status (a needs_input run is stopped, and waits for it).
  if (event.type === 'answer') {
    onAnswer(step, event);
    return endStep(step);
  }
  // A finished run is history: late replies, test results and cancels change nothing.
  if (TERMINAL_RUN_STATUSES.includes(state.status)) return step.result();
  if (event.type === 'cancel') {
    cancelRun(step, event.reason);
    return step.result();
  }
  if (event.type === 'halt') {
    leaveGate(step);
    haltBuild(step, event.reason);
    return endStep(step);
  }
  (ON[event.type] as Handler<typeof event.type>)(step, event);
  return endStep(step);
}

export const buildWorkflow = { decide } as const;
