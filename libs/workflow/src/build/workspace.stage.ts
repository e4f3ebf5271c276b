import { failRun } from '../engine/closing';
import type { Step } from './build-step';
import { callProposer } from './build-calls';
import { isSolo, startSolo } from './solo';

/** INIT: the workspace is prepared before anyone is asked anything. */

export function onStart(step: Step): void {
  if (step.state.status !== 'queued' || step.state.stage !== 'INIT') return;
  step.state.status = 'running';
  step.commands.push({ kind: 'workspace.prepare', opId: step.opId() });
  step.emit('run_started', { workspace: step.config.repo ?? null });
}

export function onWorkspacePrepared(step: Step, path: string, tree: string[]): void {
  if (step.state.stage !== 'INIT' || step.state.status !== 'running') return;
  step.state.workspace = { path, tree: [...tree] };
  const ready = `workspace ready at ${path} (${tree.length} file${tree.length === 1 ? '' : 's'})`;
  if (isSolo(step.state)) return startSolo(step, ready);
  step.go('PROPOSE', ready);
  callProposer(step);
}

export function onWorkspaceFailed(step: Step, error: string): void {
  if (step.state.stage !== 'INIT') return;
  // Nothing was debated or built, so there is nothing to synthesize: the run simply failed.
  const reason = `workspace could not be prepared: ${error}`;
  failRun(step, 'HALTED', reason);
}

