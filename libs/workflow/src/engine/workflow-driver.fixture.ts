import { RUN_EVENT_PAYLOADS, type NewRunEvent, type RunEventPayload, type RunEventType } from '@roundtable/contracts';
import { z } from 'zod';
import type { AgentCallCommandOf, FinishedCallOf, PriceLookup, UsageSnapshot, UsageTotals } from './call-types';


/** The events that say why a decision was taken: one each. */
const EXPLAINS_A_DECISION: ReadonlySet<string> = new Set(['stage_changed', 'provider_fallback', 'approval_requested', 'approval_given', 'approval_refused']);

/**
 * Test-only: what every workflow's scenario driver shares. It feeds events to a pure decide()
 * the way the orchestrator would — reserving each queued call's worst case as the step writer
 * does (budget_reservations), settling it into recorded usage when its reply lands — and checks
 * on every step that the input state is untouched, every event matches its catalogue schema
 * and every decision is explained by exactly one stage_changed or provider_fallback event.
 */

/** Tiny prompt templates from a workflow's placeholder lists: each placeholder under its own heading. */
export function templatesFromPlaceholders<T>(placeholders: Readonly<Record<string, readonly string[]>>): T {
  const template = (name: string, names: readonly string[]) => (name === 'preamble' ? 'You are the {{role}}.' : names.map((p) => `## ${p}\n{{${p}}}`).join('\n'));
  return Object.fromEntries(Object.entries(placeholders).map(([name, names]) => [name, template(name, names)])) as T;
}

/** A project's providers, each a replay provider (tests never reach one). */
export function replayProviders(...names: string[]): Record<string, { type: 'replay'; cassette: string }> {
  return Object.fromEntries(names.map((n) => [n, { type: 'replay' as const, cassette: '/c.yaml' }]));
}

/** The driver with table prices set, before its first step. */
export function priced<D extends { prices?: PriceLookup }>(driver: D, prices: PriceLookup): D {
  driver.prices = prices;
  return driver;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

export const addUsage = (a: UsageTotals | undefined, b: UsageTotals, sign = 1): UsageTotals => ({
  calls: (a?.calls ?? 0) + sign * b.calls,
  tokens: (a?.tokens ?? 0) + sign * b.tokens,
  costUsd: (a?.costUsd ?? 0) + sign * b.costUsd,
});

interface DriverState {
  usage: UsageSnapshot;
}

interface DriverResult<S, D, R> {
  state: S;
  decisions: D[];
  records: R[];
  events: NewRunEvent[];
}

type AnyCall = AgentCallCommandOf<string, string>;

export abstract class WorkflowDriver<S extends DriverState, E, Res extends DriverResult<S, D, R>, D, R> {
  readonly results: Res[] = [];
  readonly decisions: D[] = [];
  readonly events: NewRunEvent[] = [];
  readonly records: R[] = [];
  /** Table prices, as the orchestrator passes them: a priced call reserves its worst case in USD. */
  prices?: PriceLookup;

  protected constructor(
    public state: S,
    private readonly decideStep: (state: S, event: E, prices: PriceLookup | undefined) => Res,
    private readonly name: string,
  ) {}

  get last(): Res {
    return this.results[this.results.length - 1];
  }

  /** Stages the run went through, in order (the `to` of every decision). */
  get path(): string[] {
    return this.decisions.map((d) => (d as { to: string }).to);
  }

  eventTypes(): string[] {
    return this.events.map((e) => e.type);
  }

  eventsOf<T extends RunEventType>(type: T): RunEventPayload<T>[] {
    return this.events.filter((e) => e.type === type).map((e) => e.payload as RunEventPayload<T>);
  }

  setUsage(patch: Partial<UsageSnapshot>): void {
    this.state = { ...this.state, usage: { ...this.state.usage, ...patch } };
  }

  /** One checked step; the subclass then takes the step's commands. */
  protected run(event: E): Res {
    const input = deepFreeze(this.state);
    const before = JSON.stringify(input);
    const result = this.decideStep(input, event, this.prices);
    if (JSON.stringify(input) !== before) throw new Error(`${this.name}() mutated its input state`);
    for (const e of result.events) (RUN_EVENT_PAYLOADS[e.type] as unknown as z.ZodObject).strict().parse(e.payload);
    // A decision is a stage change, or (staying in the stage) a switch to a fallback provider or a gate opened or decided.
    const explained = result.events.filter((e) => EXPLAINS_A_DECISION.has(e.type));
    if (explained.length !== result.decisions.length) throw new Error(`every decision needs exactly one of these events: ${[...EXPLAINS_A_DECISION].join(', ')}`);
    this.results.push(result);
    this.decisions.push(...result.decisions);
    this.events.push(...result.events);
    this.records.push(...result.records);
    this.state = result.state;
    return result;
  }

  /** What the step writer reserves for a queued call (sign 1), and the settle releases (-1). */
  protected reserve(call: AnyCall, sign: 1 | -1): void {
    const r: UsageTotals = { calls: 1, tokens: call.reservedTokens, costUsd: call.reservedCostUsd };
    const u = this.state.usage;
    this.setUsage({
      reserved: addUsage(u.reserved, r, sign),
      reservedByProvider: { ...u.reservedByProvider, [call.provider]: addUsage(u.reservedByProvider[call.provider], r, sign) },
    });
  }

  /** The call's reservation released and its recorded usage counted, as the orchestrator settles a finished call. */
  protected settleUsage(call: AnyCall, used: UsageTotals, seconds = 0): void {
    this.reserve(call, -1);
    const u = this.state.usage;
    this.setUsage({
      used: addUsage(u.used, used),
      usedByProvider: { ...u.usedByProvider, [call.provider]: addUsage(u.usedByProvider[call.provider], used) },
      elapsedSeconds: u.elapsedSeconds + seconds,
    });
  }

  /** The finished call the provider-worker would report for `call` (completed and valid unless patched). */
  protected finishedOf<Ro extends string, G extends string>(call: AgentCallCommandOf<Ro, G>, patch: Partial<FinishedCallOf<Ro, G>>): FinishedCallOf<Ro, G> {
    return {
      id: call.callId,
      role: call.role,
      stage: call.stage,
      label: call.label,
      attempt: call.attempt,
      provider: call.provider,
      model: call.model,
      status: 'completed',
      valid: true,
      parsed: null,
      responseText: null,
      error: null,
      errorCode: null,
      schemaName: call.schemaName,
      messages: call.messages,
      ...patch,
    };
  }
}
