import { checkSharedScopes, providerExhausted } from '../budget';
import type { CallSpec, EngineState, WorkflowDefinition } from './definition';
import { queueCalls, usageAfterStep, type LedgerStep } from './ledger';

/**
 * Closing: any stage → HALTED; once the calls already in flight have landed (their replies
 * are paid for and recorded) → the closing stage with exactly one call of the closing role,
 * exempt from the run's budget (never from a team's or a project's cap: then it is fact-only). When that role's own provider failed USAGE_LIMIT, AUTH or
 * NOT_FOUND in this run, the call goes to the role's fallback provider: asking it again would
 * only fail again (the same bad key twice). With no usable fallback, or when the provider is
 * exhausted, the close is fact-only.
 */

/** Failures that say the provider cannot answer this run at all, whatever it is asked. */
export const UNUSABLE_PROVIDER_CODES: ReadonlySet<string> = new Set(['USAGE_LIMIT', 'AUTH', 'NOT_FOUND']);

/** Remembers, for the rest of the run, a provider whose failure says it cannot answer it. */
export function noteUnusableProvider<G extends string>(state: EngineState<G>, provider: string, code: string | null): void {
  if (code === null || !UNUSABLE_PROVIDER_CODES.has(code) || state.unusableProviders?.[provider]) return;
  // a new object: a step works on a copy of its input state, and never writes into the input
  state.unusableProviders = { ...state.unusableProviders, [provider]: code };
}

/** What closing needs of a step beyond the ledger: recorded decisions and stage changes. */
export interface ClosingStep<G extends string> extends LedgerStep<G> {
  readonly decisions: { from: G; to: G; reason: string; refs: string[] }[];
  go(to: G, reason: string, refs?: string[]): void;
}

export interface HaltOptions<R extends string, G extends string, K extends string> {
  refs?: string[];
  /** A closing-role repair refused by the budget: it becomes the closing role's one call. */
  pendingClosing?: CallSpec<R, G, K>;
}

/** Why `provider` cannot be asked (it failed USAGE_LIMIT, AUTH or NOT_FOUND in this run), or null. */
function unusableWhy<G extends string>(state: EngineState<G>, who: string, provider: string): string | null {
  const code = state.unusableProviders?.[provider];
  if (!code) return null;
  if (code === 'USAGE_LIMIT') return `${who} ${provider} reported a usage limit`;
  const what = code === 'AUTH' ? 'rejected its API key (AUTH)' : 'does not know the model or endpoint (NOT_FOUND)';
  return `${who} ${provider} ${what}`;
}

/**
 * The one way a run stops: its halt reason, the halted stage (a decision from the stage it was
 * in, which is where a resume starts) and run_halted. What follows is the caller's: the closing
 * call (halt), a fact-only close (the closing role itself failed), a needs_input stop.
 */
// Stryker disable next-line ArrayDeclaration: every caller passes its refs (halt passes `opts.refs ?? []`), so the default is never used
export function markHalted<G extends string>(step: ClosingStep<G>, haltedStage: G, reason: string, refs: string[] = []): void {
  step.state.haltReason = reason;
  step.go(haltedStage, reason, refs);
  step.emit('run_halted', { reason });
}

/**
 * The run fails outright: nothing a closing role could fairly write (no workspace, a collapsed
 * panel). `beforeEnd` adds what the workflow says at its end (the panel's run_metrics).
 */
export function failRun<G extends string>(
  step: ClosingStep<G> & { state: { status: string } },
  haltedStage: G,
  reason: string,
  refs: string[] = [],
  beforeEnd?: () => void,
): void {
  step.state.haltReason = reason;
  step.go(haltedStage, reason, refs);
  step.state.status = 'failed';
  beforeEnd?.();
  step.emit('run_failed', { reason });
}

/** Any stage → halted; the calls in flight land, then the closing role's one call (or the fact-only close). */
export function halt<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  reason: string,
  opts: HaltOptions<R, G, K> = {},
): void {
  // Only the closing call runs after a halt, and it never halts again: be safe anyway.
  if (step.state.haltReason !== null) return def.factOnly(step, `halted again while halted: ${reason}`);
  markHalted(step, def.haltedStage, reason, opts.refs ?? []);
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
  const nothing = def.nothingToClose?.(step) ?? null;
  if (nothing) return def.factOnly(step, nothing);
  const provider = closingProvider(step, def);
  if (providerExhausted(usageAfterStep(step), step.state.config.budget, provider)) {
    return def.factOnly(step, `the ${def.closing.noun}'s provider ${provider} has reached its own budget cap`);
  }
  // A team's or a project's cap binds the close too (it is the operator's, across runs): with no
  // room for one more call there, the close is written from the records alone.
  const scope = checkSharedScopes(usageAfterStep(step), { costUsd: 0 });
  if (!scope.ok) return def.factOnly(step, `no ${def.closing.noun} call: ${scope.reason}`);
  const blocked = unusableWhy(step.state, `the ${def.closing.noun}'s provider`, provider);
  const agent = def.agentOf(step.state.config as S['config'], def.closing.role);
  const fallback = blocked && agent.fallback && agent.fallback !== provider ? agent.fallback : null;
  if (blocked && !fallback) return def.factOnly(step, blocked);
  // Stryker disable next-line ConditionalExpression: with no fallback both checks below find nothing (no provider is named null), so `true` is the same; `false` is pinned by the closing specs
  if (fallback) {
    const fallbackBlocked = unusableWhy(step.state, 'its fallback provider', fallback);
    if (fallbackBlocked) return def.factOnly(step, `${blocked}, and ${fallbackBlocked}`);
    if (providerExhausted(usageAfterStep(step), step.state.config.budget, fallback)) {
      return def.factOnly(step, `${blocked}, and its fallback provider ${fallback} has reached its own budget cap`);
    }
  }
  step.go(def.closing.stage, `partial synthesis after the halt: the ${def.closing.noun} gets exactly one call, even over budget`);
  def.onClosingStage(step);
  let spec = pendingClosing ?? def.closingSpec(step);
  if (fallback) {
    const model = agent.fallback_model ?? spec.model;
    const reason = `${blocked}; asking the ${def.closing.noun}'s fallback provider ${fallback}/${model} instead`;
    const stage = step.state.stage;
    step.decisions.push({ from: stage, to: stage, reason, refs: [] });
    step.emit('provider_fallback', { role: def.closing.role, from: provider, to: fallback, reason });
    spec = { ...spec, provider: fallback, model };
  }
  const refused = queueCalls(step, def, [spec], { exempt: true });
  if (refused) def.factOnly(step, `no ${def.closing.noun} call: ${refused.reason}`);
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
