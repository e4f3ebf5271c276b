import type { RunStage, RunStatus } from '@roundtable/contracts';
import type { EngineState } from './definition';
import type { ClosingStep } from './closing';

/**
 * Resume, the part every workflow shares: a stopped run (one of the workflow's `resumable`
 * statuses) takes the raised caps, runs again with no halt reason, says so (run_resumed) and
 * stands in the stage it restarts from. What it does there is the workflow's: recorded work is
 * reused, never re-billed.
 */

/** The caps a resume raises, as given (only numbers: an absent cap keeps its value). */
function numericCaps(caps: Partial<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(caps).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
}

/** Reopens the run at `at`; false (and nothing changed) when its status is not one it may be resumed from. */
export function reopenRun<G extends RunStage>(
  step: ClosingStep<G> & { state: EngineState<G> & { status: RunStatus } },
  resumable: readonly RunStatus[],
  at: G,
  rerun: boolean,
  caps: Partial<Record<string, number>>,
): boolean {
  if (!resumable.includes(step.state.status)) return false;
  const raised = numericCaps(caps);
  step.state.config = { ...step.state.config, budget: { ...step.state.config.budget, ...raised } };
  step.state.status = 'running';
  step.state.haltReason = null;
  step.emit('run_resumed', { at, rerun, caps: raised });
  step.go(at, rerun ? `resumed: re-running ${at} as asked` : `resumed where the halt left the run`, []);
  return true;
}
