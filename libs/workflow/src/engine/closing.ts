import { providerExhausted } from '../budget';
import type { CallSpec, EngineState, WorkflowDefinition } from './definition';
import { queueCalls, usageAfterStep, type LedgerStep } from './ledger';

/**
 * Closing: any stage → HALTED; once the calls already in flight have landed (their replies
 * are paid for and recorded) → the closing stage with exactly one call of the closing role,
 * exempt from the budget, or the fact-only close when that role's own provider is exhausted
 * or reported a usage limit.
 */

/** What closing needs of a step beyond the ledger: recorded decisions and stage changes. */
export interface ClosingStep<G extends string> extends LedgerStep<G> {
  readonly decisions: { from: G; to: G; reason: string; refs: string[] }[];
  go(to: G, reason: string, refs?: string[]): void;
}

export interface HaltOptions<R extends string, G extends string, K extends string> {
  refs?: string[];
  /** A closing-role repair refused by the budget: it becomes the closing role's one call. */
  pendingClosing?: CallSpec<R, G, K>;
  /** The provider that reported a usage limit; if it is the closing role's, no call is attempted. */
  usageLimitProvider?: string | null;
}

export function halt<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  reason: string,
  opts: HaltOptions<R, G, K> = {},
): void {
  // Only the closing call runs after a halt, and it never halts again: be safe anyway.
  if (step.state.haltReason !== null) return def.factOnly(step, `halted again while halted: ${reason}`);
  step.state.haltReason = reason;
  step.go(def.haltedStage, reason, opts.refs ?? []);
  step.emit('run_halted', { reason });
  const provider = closingProvider(step, def);
  if (opts.usageLimitProvider && opts.usageLimitProvider === provider) {
    def.blockClosing(step, `the ${def.closing.noun}'s provider ${provider} reported a usage limit`);
  }
  closeWhenSettled(step, def, opts.pendingClosing);
}

function closingProvider<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
): string {
  return def.agentOf(step.state.config as S['config'], def.closing.role).provider;
}

/** After a halt: once nothing is in flight, the one closing call (or the fact-only close). */
export function closeWhenSettled<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  pendingClosing?: CallSpec<R, G, K>,
): void {
  if (def.inFlight(step) > 0) return; // the calls in flight land first
  const provider = closingProvider(step, def);
  if (providerExhausted(usageAfterStep(step), step.state.config.budget, provider)) {
    return def.factOnly(step, `the ${def.closing.noun}'s provider ${provider} has reached its own budget cap`);
  }
  const blocked = def.closingBlocked(step);
  if (blocked) return def.factOnly(step, blocked);
  step.go(def.closing.stage, `partial synthesis after the halt: the ${def.closing.noun} gets exactly one call, even over budget`);
  def.onClosingStage(step);
  queueCalls(step, def, [pendingClosing ?? def.closingSpec(step)], { exempt: true });
}

/** Queue calls; a refusal halts the run (the calls that fit are already in flight and will land). */
export function requestOrHalt<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  specs: CallSpec<R, G, K>[],
): boolean {
  const refusal = queueCalls(step, def, specs);
  if (!refusal) return true;
  const refused = specs[refusal.index];
  const pendingClosing = refused.role === def.closing.role && refused.repairOf !== null ? refused : undefined;
  halt(step, def, refusal.reason, { refs: [refusal.cap], pendingClosing });
  return false;
}
