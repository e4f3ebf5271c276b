import type { RunStatus } from '@roundtable/contracts';
import { warnAboutBudget, type LedgerStep } from './ledger';

/** How every workflow's step ends: a cancel, and the result with its budget warnings. */

interface EndingStep<G extends string> extends LedgerStep<G> {
  readonly state: LedgerStep<G>['state'] & { status: RunStatus };
  readonly touched: boolean;
}

/**
 * Cancel stops between steps by construction (a step is never interrupted): the run is
 * terminal, and a reply that lands after this changes nothing.
 */
export function cancelRun<G extends string>(step: EndingStep<G>, reason: string | undefined): void {
  step.state.status = 'cancelled';
  step.emit('run_cancelled', { reason: reason ?? null });
}

/** The step's result; a step that did anything warns about the caps its reservations crossed 80 % of. */
export function endStep<G extends string, T>(step: EndingStep<G> & { result(): T }): T {
  if (step.touched) warnAboutBudget(step);
  return step.result();
}
