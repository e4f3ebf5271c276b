import { PREREGISTRATION_GATE, type Preregistration } from '@roundtable/contracts';
import { closeWhenSettled, failRun } from '../engine/closing';
import { awaitApproval, closeGate, gateDecided, type ApprovalEvent } from '../engine/gates';
import { askOrHalt, experimentDefinition } from './experiment-definition';
import type { ExperimentStep } from './experiment-step';
import type { ExperimentFinishedCall } from './experiment-types';
import { finishUndecided } from './interpret.stage';
import { startMethod } from './method.stage';

/**
 * INIT → RUN for a preregistered experiment; INIT → DRAFT → LOCK → RUN for a drafted one: the
 * proposer drafts a preregistration from what it must settle (a critique's NEEDS_EXPERIMENT, an
 * idea's recommended experiment), and the run waits at the preregistration gate. Approving it
 * locks it (the orchestrator hashes it onto the experiments row); refusing it ends the run undecided.
 */

export function onStart(step: ExperimentStep): void {
  if (step.state.status !== 'queued' || step.state.stage !== 'INIT') return;
  step.state.status = 'running';
  step.emit('run_started', { workspace: null });
  if (step.state.preregistration) return startMethod(step, 'preregistered and locked: the method runs at the pinned commit');
  step.go('DRAFT', 'no preregistration yet: the proposer drafts one, and a person approves it before it is locked');
  askOrHalt(step, 'draft');
}

export function onDraft(step: ExperimentStep, call: ExperimentFinishedCall, label: string, body: Preregistration): void {
  step.state.draft = { label, callId: call.id, body };
  if (step.state.haltReason !== null) return closeWhenSettled(step, experimentDefinition);
  step.go('LOCK', `${label} drafted "${body.title}": it is locked only when a person approves it`, [label]);
  awaitApproval(
    step,
    PREREGISTRATION_GATE,
    { experiment_id: step.config.experiment_id, preregistration: body, draft_from: step.config.draft_from ?? null },
    'a drafted preregistration is hashed, locked and run only once a person approves it',
    [label],
  );
}

export function onApproval(step: ExperimentStep, event: ApprovalEvent): void {
  if (!gateDecided(step, event)) return;
  closeGate(step, event);
  const draft = step.state.draft!;
  if (event.decision === 'reject') {
    step.records.push({ kind: 'experiment_rejected', experimentId: step.config.experiment_id });
    step.go('DONE', `${draft.label} refused by ${event.approver}: nothing is locked or run`, [draft.label]);
    return finishUndecided(step, 'done');
  }
  if (!step.config.commit) {
    // A build's draft is pinned to the commit its worktree was made from; a plain directory has none.
    return failRun(step, 'HALTED', `${draft.label} was approved, but there is no commit to pin it to: ${step.config.repo} was not used as a git repository (commit it, then preregister the experiment again)`, [draft.label]);
  }
  step.state.preregistration = draft.body;
  step.records.push({ kind: 'experiment_locked', experimentId: step.config.experiment_id, preregistration: draft.body, approver: event.approver });
  startMethod(step, `${draft.label} approved by ${event.approver}: locked, and the method runs at the pinned commit`, [draft.label]);
}
