import type { NewRunEvent, RunEventPayload, RunEventType } from '@roundtable/contracts';
import { budgetWarnings, checkBudget, checkSharedScopes, estimateTokens, type BudgetCheck } from '../budget';
import type { AgentCallCommandOf, ChatMessage, PriceLookup, UsageSnapshot, UsageTotals } from './call-types';
import type { CallSpec, EngineState, WorkflowDefinition } from './definition';

/**
 * The call ledger: request a call → check it against recorded usage plus every reservation
 * (the calls queued earlier in this same step included) → reserve → command. Every agent
 * call of every workflow goes through queueCalls(), so parallel calls cannot overshoot a
 * cap together and a workflow cannot forget a check.
 */

/** What the ledger needs of a step (EngineStep has it). */
export interface LedgerStep<G extends string> {
  readonly runId: string;
  readonly state: EngineState<G>;
  readonly commands: { kind: string }[];
  readonly events: NewRunEvent[];
  readonly prices?: PriceLookup;
  /** Backoff before each transient retry; its length is the number of retries (default DEFAULT_RETRY_DELAYS_MS). */
  readonly retryDelaysMs?: readonly number[];
  bump(family: string): number;
  emit<T extends RunEventType>(type: T, payload: RunEventPayload<T>): void;
}

/** What one call holds against the budget until it settles. */
export interface Reservation {
  /** The prompt estimate alone. */
  estimatedTokens: number;
  /** The worst case: the prompt estimate plus the call's max output tokens. */
  reservedTokens: number;
  /** That worst case at the model's table price; 0 for an unpriced model. */
  reservedCostUsd: number;
}

export function reservationFor(messages: readonly ChatMessage[], maxTokens: number, model: string, prices?: PriceLookup): Reservation {
  const estimatedTokens = estimateTokens(messages);
  const price = prices?.(model) ?? null;
  const reservedCostUsd = price ? (estimatedTokens * price.inputPerMtok + maxTokens * price.outputPerMtok) / 1_000_000 : 0;
  return { estimatedTokens, reservedTokens: estimatedTokens + maxTokens, reservedCostUsd };
}

const ZERO: UsageTotals = { calls: 0, tokens: 0, costUsd: 0 };

function plus(t: UsageTotals | undefined, r: Pick<Reservation, 'reservedTokens' | 'reservedCostUsd'>): UsageTotals {
  const x = t ?? ZERO;
  return { calls: x.calls + 1, tokens: x.tokens + r.reservedTokens, costUsd: (x.costUsd ?? 0) + r.reservedCostUsd };
}

/** `usage` with one more call to `provider` reserved (in the run, and in every scope it shares with other runs). */
export function reserve(usage: UsageSnapshot, provider: string, r: Pick<Reservation, 'reservedTokens' | 'reservedCostUsd'>): UsageSnapshot {
  return {
    ...usage,
    reserved: plus(usage.reserved, r),
    reservedByProvider: { ...usage.reservedByProvider, [provider]: plus(usage.reservedByProvider[provider], r) },
    ...(usage.shared
      ? {
          shared: usage.shared.map((s) => ({
            ...s,
            used: { callsToday: s.used.callsToday + 1, usdToday: s.used.usdToday + r.reservedCostUsd, usdTotal: s.used.usdTotal + r.reservedCostUsd },
          })),
        }
      : {}),
  };
}

const isCall = (c: { kind: string }): c is AgentCallCommandOf<string, string> => c.kind === 'agent_call';

/** Usage as the orchestrator will hold it after this step: the calls queued here are reserved too. */
export function usageAfterStep<G extends string>(step: LedgerStep<G>): UsageSnapshot {
  return step.commands.filter(isCall).reduce((u, c) => reserve(u, c.provider, c), step.state.usage);
}

/** Caps crossing 80 % with this step's reservations, each warned about once per run. */
export function warnAboutBudget<G extends string>(step: LedgerStep<G>): void {
  const { warnings, counters } = budgetWarnings(usageAfterStep(step), step.state.config.budget, step.state.counters);
  // Stryker disable next-line ConditionalExpression: with no warnings the rest pushes none and sets counters to an equal copy (`true`, never warning, is pinned by the warning specs)
  if (warnings.length === 0) return;
  step.state.counters = counters;
  step.events.push(...warnings.map((w): NewRunEvent => ({ type: 'budget_warning', payload: w })));
}

export type Refusal = Extract<BudgetCheck, { ok: false }> & { index: number };

/**
 * Budget before every enqueue, for a batch: each call is checked against recorded usage plus
 * every reservation, including the calls queued earlier in this same step. The calls that fit
 * are queued (all or none with `allOrNothing`); the first refusal is returned for the caller
 * to act on. `exempt` is the closing role's one call after a halt: over the run's caps, never
 * over a team's or a project's (the refusal then says why the close is fact-only).
 */
export function queueCalls<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends LedgerStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  specs: CallSpec<R, G, K>[],
  opts: { exempt?: boolean; allOrNothing?: boolean } = {},
): Refusal | null {
  const config = step.state.config as S['config'];
  const reservations = specs.map((s) => reservationFor(s.messages, def.agentOf(config, s.role).max_tokens, s.model, step.prices));
  let refusal: Refusal | null = null;
  {
    let usage = usageAfterStep(step);
    for (let i = 0; i < specs.length; i += 1) {
      const r = reservations[i];
      const planned = { provider: specs[i].provider, estimatedTokens: r.reservedTokens, costUsd: r.reservedCostUsd };
      // The closing call is exempt from the run's own caps, never from a team's or a project's:
      // those are the operator's, across runs, and no run's close may spend another run's share.
      const check = opts.exempt ? checkSharedScopes(usage, planned) : checkBudget(usage, step.state.config.budget, planned);
      if (!check.ok) {
        refusal = { ...check, index: i };
        break;
      }
      usage = reserve(usage, specs[i].provider, r);
    }
  }
  const fitting = refusal ? (opts.allOrNothing ? [] : specs.slice(0, refusal.index)) : specs;
  fitting.forEach((spec, i) => enqueue(step, def, spec, reservations[i]));
  return refusal;
}

function enqueue<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends LedgerStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  spec: CallSpec<R, G, K>,
  reservation: Reservation,
): void {
  if (spec.labelFamily) step.bump(spec.labelFamily);
  const agent = def.agentOf(step.state.config as S['config'], spec.role);
  const command: AgentCallCommandOf<R, G> = {
    kind: 'agent_call',
    callId: `${step.runId}-c${step.bump('call')}`,
    role: spec.role,
    stage: spec.stage,
    label: spec.label,
    provider: spec.provider,
    model: spec.model,
    schemaName: spec.schemaName,
    messages: spec.messages,
    contextRefs: spec.contextRefs,
    maxTokens: agent.max_tokens,
    temperature: agent.temperature,
    timeoutMs: agent.timeout_s * 1000,
    attempt: spec.attempt,
    repairOf: spec.repairOf,
    ...(spec.retry ? { retry: spec.retry.n, retryOf: spec.retry.of, delayMs: spec.retry.delayMs } : {}),
    ...reservation,
  };
  step.commands.push(command);
  def.onQueued(step, spec, command);
  step.emit('agent_call_queued', {
    call_id: command.callId,
    stage: command.stage,
    role: command.role,
    provider: command.provider,
    model: command.model,
    attempt: command.attempt,
    label: command.label,
  } as RunEventPayload<'agent_call_queued'>);
}
