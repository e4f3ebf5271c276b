import { BudgetConfig, type AgentConfig } from '@roundtable/contracts';
import { emptyUsage } from './call-types';
import type { PriceLookup, UsageSnapshot } from './call-types';
import type { CallSpec, EngineState, WorkflowDefinition } from './definition';
import { queueCalls, reservationFor, usageAfterStep } from './ledger';
import { EngineStep } from './step-accumulator';

/** The ledger on its own: a two-role toy workflow, no templates, no stage rules. */

type Role = 'a' | 'b';
interface ToyState extends EngineState<'RUN'> {
  runId: string;
  counters: Record<string, number>;
}

class ToyStep extends EngineStep<ToyState, 'RUN', never, { kind: string }> {
  constructor(state: ToyState, prices?: PriceLookup) {
    super({ ...state, counters: { ...state.counters } }, prices);
  }
  protected outcome() {
    return { verdict: null, confidence: null };
  }
}

const agents: Record<Role, AgentConfig> = {
  a: { provider: 'p1', model: 'priced', mode: 'answer', timeout_s: 60, max_tokens: 1000, temperature: 0 },
  b: { provider: 'p2', model: 'free', mode: 'answer', timeout_s: 60, max_tokens: 500, temperature: 0 },
};

const def = { agentOf: (_c: unknown, role: Role) => agents[role], onQueued: () => undefined } as unknown as WorkflowDefinition<ToyState, Role, 'RUN', Role, ToyStep>;

const prices: PriceLookup = (model) => (model === 'priced' ? { inputPerMtok: 3, outputPerMtok: 15 } : null);

function step(budget: Partial<BudgetConfig>, usage: Partial<UsageSnapshot> = {}): ToyStep {
  return new ToyStep({ runId: 'r', stage: 'RUN', haltReason: null, counters: {}, usage: { ...emptyUsage(), ...usage }, config: { budget: BudgetConfig.parse(budget) } }, prices);
}

function spec(role: Role, promptChars = 400): CallSpec<Role, 'RUN', Role> {
  const a = agents[role];
  return { role, kind: role, stage: 'RUN', label: 'X', labelFamily: null, messages: [{ role: 'user', content: 'x'.repeat(promptChars) }], contextRefs: [], attempt: 1, repairOf: null, provider: a.provider, model: a.model, schemaName: 'Proposal' };
}

describe('the call ledger', () => {
  it('reserves the worst case: prompt estimate + max output tokens, and that at the table price', () => {
    expect(reservationFor([{ role: 'user', content: 'x'.repeat(400) }], 1000, 'priced', prices)).toEqual({
      estimatedTokens: 100,
      reservedTokens: 1100,
      reservedCostUsd: (100 * 3 + 1000 * 15) / 1_000_000,
    });
    expect(reservationFor([{ role: 'user', content: 'x'.repeat(400) }], 500, 'free', prices).reservedCostUsd).toBe(0);
    expect(reservationFor([{ role: 'user', content: 'x'.repeat(400) }], 500, 'priced').reservedCostUsd).toBe(0); // no price lookup: no USD
  });

  it('counts the reservations made earlier in the same step', () => {
    const s = step({ max_tokens: 3000 });
    const refusal = queueCalls(s, def, [spec('a'), spec('a'), spec('a')]);
    expect(s.commands).toHaveLength(2); // 1100 + 1100 fit, a third 1100 would make 3300
    expect(refusal).toMatchObject({ index: 2, cap: 'max_tokens' });
    expect(refusal?.reason).toBe('max_tokens would be exceeded: 2200 tokens used or reserved + 1100 estimated for the next call > 3000');
    expect(usageAfterStep(s).reserved).toEqual({ calls: 2, tokens: 2200, costUsd: 2 * 0.0153 });
    // A second batch in the same step sees the first: b's 600 still fits, another 1100 does not.
    expect(queueCalls(s, def, [spec('b')])).toBeNull();
    expect(queueCalls(s, def, [spec('a')])).toMatchObject({ cap: 'max_tokens' });
  });

  it('refuses a call whose worst-case USD would pass max_cost_usd; an unpriced call reserves none', () => {
    const s = step({ max_cost_usd: 0.04 }, { used: { calls: 1, tokens: 10, costUsd: 0.01 }, usedByProvider: { p1: { calls: 1, tokens: 10, costUsd: 0.01 } } });
    const refusal = queueCalls(s, def, [spec('a'), spec('a'), spec('b'), spec('b')]);
    expect(refusal).toMatchObject({ index: 1, cap: 'max_cost_usd' });
    expect(refusal?.reason).toBe('max_cost_usd would be exceeded: $0.03 spent or reserved + $0.02 at the table price for the next call > $0.04');
    const s2 = step({ max_cost_usd: 0.04 }, { used: { calls: 1, tokens: 10, costUsd: 0.01 }, usedByProvider: {} });
    expect(queueCalls(s2, def, [spec('b'), spec('b'), spec('b')])).toBeNull();
  });

  it('checks per-provider caps with the same step’s reservations, and all or none when asked', () => {
    const s = step({ per_provider: { p2: { max_calls: 1 } } });
    expect(queueCalls(s, def, [spec('a'), spec('b'), spec('b')], { allOrNothing: true })).toMatchObject({ index: 2, cap: 'per_provider.p2.max_calls' });
    expect(s.commands).toEqual([]);
    expect(s.state.counters.call).toBeUndefined();
  });

  it('an exempt call (the closing call after a halt) is queued over any cap, with its reservation', () => {
    const s = step({ max_calls: 1 }, { used: { calls: 1, tokens: 0, costUsd: 0 } });
    expect(queueCalls(s, def, [spec('a')], { exempt: true })).toBeNull();
    expect(s.commands).toEqual([expect.objectContaining({ kind: 'agent_call', callId: 'r-c1', estimatedTokens: 100, reservedTokens: 1100, maxTokens: 1000 })]);
  });

  it('counts this step’s own reservations against a team cap shared with other runs, and names the scope', () => {
    const team = { scope: 'teams.alpha', label: 'team alpha', caps: { max_calls_per_day: 5, max_usd_total: 1 }, used: { callsToday: 3, usdToday: 0.2, usdTotal: 0.9 } };
    const s = step({}, { shared: [team] });
    const refusal = queueCalls(s, def, [spec('b'), spec('b'), spec('b')]);
    expect(s.commands).toHaveLength(2); // 3 used or in flight in all runs + 2 here = 5
    expect(refusal).toEqual({
      ok: false,
      index: 2,
      cap: 'teams.alpha.max_calls_per_day',
      reason: 'teams.alpha.max_calls_per_day reached: 5 of 5 calls used or in flight today (team alpha, all runs)',
    });
    expect(usageAfterStep(s).shared).toEqual([{ ...team, used: { callsToday: 5, usdToday: 0.2, usdTotal: 0.9 } }]);
    // USD: a priced call's worst case ($0.0153) on $0.9 of $1 fits six times, not seven.
    const t = step({}, { shared: [{ ...team, caps: { max_usd_total: 1 } }] });
    expect(queueCalls(t, def, Array.from({ length: 7 }, () => spec('a')))).toMatchObject({ index: 6, cap: 'teams.alpha.max_usd_total' });
  });

  it('the exempt closing call is over the run’s caps but never over a team’s or a project’s', () => {
    const full = { scope: 'projects.p', label: 'project p', caps: { max_calls_per_day: 2 }, used: { callsToday: 2, usdToday: 0, usdTotal: 0 } };
    const s = step({ max_calls: 1 }, { used: { calls: 1, tokens: 0, costUsd: 0 }, shared: [full] });
    expect(queueCalls(s, def, [spec('a')], { exempt: true })).toMatchObject({ index: 0, cap: 'projects.p.max_calls_per_day' });
    expect(s.commands).toEqual([]);
    const room = step({ max_calls: 1 }, { used: { calls: 1, tokens: 0, costUsd: 0 }, shared: [{ ...full, used: { ...full.used, callsToday: 1 } }] });
    expect(queueCalls(room, def, [spec('a')], { exempt: true })).toBeNull();
  });
});
