import { closeWhenSettled, failRun } from '../engine/closing';
import { askOrHalt, experimentDefinition } from './experiment-definition';
import type { ExperimentStep } from './experiment-step';
import type { MethodOutcome } from './experiment-types';

/**
 * RUN: the method's command, in the sandbox, in a worktree at the pinned commit (the test-runner's
 * experiment op). What it measured is stored only with the preregistration's hash; a command that
 * could not run, or whose metrics are missing or not numbers, fails the run and leaves no result,
 * so the experiment may be run again.
 */

export function startMethod(step: ExperimentStep, why: string, refs: string[] = []): void {
  const prereg = step.state.preregistration!;
  step.go('RUN', why, refs);
  const opId = step.id(`M${step.bump('M')}`);
  step.state.methodOp = opId;
  const limits = step.ctx.methodTimeoutS;
  const timeoutS = Math.min(prereg.method.timeout_s ?? limits.default, limits.max);
  step.commands.push({ kind: 'experiment.run', opId, experimentId: step.config.experiment_id, command: prereg.method.command, metrics: prereg.method.metrics, timeoutS });
  step.emit('method_started', { op_id: opId, command: prereg.method.command, metrics: prereg.method.metrics });
}

export function onMethodRan(step: ExperimentStep, opId: string, outcome: MethodOutcome): void {
  if (step.state.methodOp !== opId) return; // a duplicate, or an op this run no longer waits for
  step.state.methodOp = null;
  if (!outcome.ok) {
    step.emit('method_finished', { op_id: opId, metrics: null, exit_code: null, error: outcome.error });
    if (step.state.haltReason !== null) return closeWhenSettled(step, experimentDefinition);
    return failRun(step, 'HALTED', `the method gave no result: ${outcome.error}`, [opId]);
  }
  const result = outcome.result;
  step.state.result = result;
  step.records.push({ kind: 'experiment_result', experimentId: step.config.experiment_id, result });
  step.emit('method_finished', { op_id: opId, metrics: result.metrics, exit_code: result.exit_code, error: null });
  if (step.state.haltReason !== null) return closeWhenSettled(step, experimentDefinition);
  step.go('INTERPRET', `the method produced ${Object.keys(result.metrics).length} metrics: the interpreter reads each criterion against them`, [opId]);
  askOrHalt(step, 'interpret');
}
