import { BudgetConfig } from '@roundtable/contracts';
import { budgetSummary, budgetWarnings, checkBudget, checkScope, checkSharedScopes, costLine, estimateTokens, formatUsd, providerExhausted } from './budget';
import type { SharedUsage } from './engine/call-types';
import type { UsageSnapshot, UsageTotals } from './build/build-types';
import { emptyUsage } from './engine/call-types';

const totals = (calls: number, tokens = 0, costUsd = 0): UsageTotals => ({ calls, tokens, costUsd });
const usage = (patch: Partial<UsageSnapshot> = {}): UsageSnapshot => ({ ...emptyUsage(), ...patch });
const budget = (patch: Partial<BudgetConfig> = {}): BudgetConfig =>
  BudgetConfig.parse({ max_calls: 4, max_tokens: 1000, max_cost_usd: 1, max_seconds: 100, ...patch });
const call = (estimatedTokens = 10, provider = 'anthropic') => ({ provider, estimatedTokens });

describe('checkBudget', () => {
  it('allows a call that fits every cap', () => {
    expect(checkBudget(usage({ used: totals(3, 900, 0.5) }), budget(), call(100))).toEqual({ ok: true });
  });

  it('max_calls counts used plus in-flight calls plus this one', () => {
    const u = usage({ used: totals(3), reserved: totals(1) });
    expect(checkBudget(u, budget(), call())).toEqual({
      ok: false,
      cap: 'max_calls',
      reason: 'max_calls reached: 4 of 4 calls used or in flight',
    });
    expect(checkBudget(usage({ used: totals(3) }), budget(), call()).ok).toBe(true);
  });

  it('max_tokens counts used + reserved + the estimate', () => {
    const u = usage({ used: totals(1, 600), reserved: totals(1, 300) });
    expect(checkBudget(u, budget(), call(100)).ok).toBe(true);
    const r = checkBudget(u, budget(), call(101));
    expect(r).toMatchObject({ ok: false, cap: 'max_tokens' });
    expect(!r.ok && r.reason).toBe('max_tokens would be exceeded: 900 tokens used or reserved + 101 estimated for the next call > 1000');
  });

  it('max_cost_usd stops at the cap (used + reserved) and is skipped when unset', () => {
    expect(checkBudget(usage({ used: totals(1, 0, 0.99) }), budget(), call()).ok).toBe(true);
    const r = checkBudget(usage({ used: totals(1, 0, 0.6), reserved: totals(1, 0, 0.4) }), budget(), call());
    expect(r).toMatchObject({ ok: false, cap: 'max_cost_usd' });
    expect(!r.ok && r.reason).toBe('max_cost_usd reached: $1.00 of $1.00 spent or reserved');
    expect(checkBudget(usage({ used: totals(1, 0, 50) }), budget({ max_cost_usd: undefined }), call()).ok).toBe(true);
  });

  it('max_seconds stops once the elapsed time reaches the cap', () => {
    expect(checkBudget(usage({ elapsedSeconds: 99.9 }), budget(), call()).ok).toBe(true);
    expect(checkBudget(usage({ elapsedSeconds: 100 }), budget(), call())).toMatchObject({
      ok: false,
      cap: 'max_seconds',
      reason: 'max_seconds reached: 100 s of 100 s elapsed',
    });
  });

  describe('per provider', () => {
    const b = budget({ max_calls: 100, max_tokens: 100_000, per_provider: { xai: { max_calls: 2, max_tokens: 500, max_cost_usd: 0.2 } } });

    it('max_calls counts the provider’s used and in-flight calls only', () => {
      const u = usage({ used: totals(10), usedByProvider: { xai: totals(1) }, reservedByProvider: { xai: totals(1) } });
      expect(checkBudget(u, b, call(1, 'xai'))).toMatchObject({
        ok: false,
        cap: 'per_provider.xai.max_calls',
        reason: 'per_provider.xai.max_calls reached: 2 of 2 calls used or in flight',
      });
      expect(checkBudget(u, b, call(1, 'anthropic')).ok).toBe(true);
    });

    it('max_tokens', () => {
      const u = usage({ usedByProvider: { xai: totals(0, 300) }, reservedByProvider: { xai: totals(0, 150) } });
      expect(checkBudget(u, b, call(50, 'xai')).ok).toBe(true);
      expect(checkBudget(u, b, call(51, 'xai'))).toMatchObject({ ok: false, cap: 'per_provider.xai.max_tokens' });
    });

    it('max_cost_usd', () => {
      const u = usage({ usedByProvider: { xai: totals(1, 0, 0.2) } });
      expect(checkBudget(u, b, call(1, 'xai'))).toMatchObject({ ok: false, cap: 'per_provider.xai.max_cost_usd' });
    });
  });
});

describe('providerExhausted', () => {
  const b = budget({ per_provider: { anthropic: { max_calls: 2 } } });
  it('is true once a provider cap is reached by used + reserved', () => {
    expect(providerExhausted(usage({ usedByProvider: { anthropic: totals(1) } }), b, 'anthropic')).toBe(false);
    expect(providerExhausted(usage({ usedByProvider: { anthropic: totals(1) }, reservedByProvider: { anthropic: totals(1) } }), b, 'anthropic')).toBe(true);
  });
  it('is false for a provider without caps, whatever the run-wide usage', () => {
    expect(providerExhausted(usage({ used: totals(99, 99_999, 99) }), b, 'xai')).toBe(false);
  });
});

describe('budgetWarnings', () => {
  it('warns once per cap at 80 %, carrying the warned caps in counters', () => {
    const b = budget({ per_provider: { xai: { max_calls: 5 } } });
    const u = usage({ used: totals(3, 500), reserved: totals(0, 300), usedByProvider: { xai: totals(4) }, elapsedSeconds: 10 });
    const first = budgetWarnings(u, b, { P: 1 });
    expect(first.warnings).toEqual([
      { cap: 'max_tokens', used: 800, limit: 1000 },
      { cap: 'per_provider.xai.max_calls', used: 4, limit: 5 },
    ]);
    expect(first.counters).toEqual({ P: 1, 'warn:max_tokens': 1, 'warn:per_provider.xai.max_calls': 1 });
    const again = budgetWarnings(usage({ ...u, used: totals(4, 500) }), b, first.counters);
    expect(again.warnings).toEqual([{ cap: 'max_calls', used: 4, limit: 4 }]);
  });

  it('covers cost and seconds', () => {
    const w = budgetWarnings(usage({ used: totals(0, 0, 0.85), elapsedSeconds: 80 }), budget()).warnings.map((x) => x.cap);
    expect(w).toEqual(['max_cost_usd', 'max_seconds']);
  });
});

describe('estimateTokens and budgetSummary', () => {
  it('estimates a quarter token per character, rounded up', () => {
    expect(estimateTokens([{ content: 'abcd' }, { content: 'e' }])).toBe(2);
    expect(estimateTokens([])).toBe(0);
  });

  it('summarises usage against caps', () => {
    const s = budgetSummary(usage({ used: totals(2, 300, 0.05), elapsedSeconds: 12 }), budget({ max_cost_usd: undefined }));
    expect(s).toContain('calls: 2 of 4');
    expect(s).toContain('tokens: 300 of 1000');
    expect(s).toContain('cost: $0.05 (no cap)');
    expect(s).toContain('elapsed: 12 s of 100 s');
  });
});

describe('the cost line of a prompt when calls are unpriced', () => {
  it('says the cost is unknown when no call had a price, never $0.00', () => {
    const s = budgetSummary({ ...usage({ used: totals(3, 300, 0), elapsedSeconds: 1 }), unpricedCalls: 3 }, budget({ max_cost_usd: 2 }));
    expect(s).toContain('cost unknown (3 calls unpriced); cap $2.00');
    expect(s).not.toContain('$0.00');
  });

  it('gives the known sum and how many calls it leaves out when some are unpriced', () => {
    expect(costLine(0.5, 1, 3, undefined)).toBe('cost: $0.50 + 1 call unpriced (no cap)');
    expect(costLine(0.5, 2, 3, 1)).toBe('cost: $0.50 + 2 calls unpriced of $1.00');
  });

  it('keeps the plain sum when every call was priced', () => {
    expect(costLine(0.25, 0, 3, 1)).toBe('cost: $0.25 of $1.00');
    expect(costLine(0, 0, 0, undefined)).toBe('cost: $0.00 (no cap)');
  });

  it('says unknown without a cap too', () => {
    expect(costLine(0, 1, 1, undefined)).toBe('cost unknown (1 call unpriced) (no cap)');
  });
});

describe('the worst case of a priced call against max_cost_usd', () => {
  const priced = (costUsd: number, provider = 'anthropic') => ({ provider, estimatedTokens: 10, costUsd });

  it('allows a call whose worst case lands exactly on the cap, and refuses one that would go over', () => {
    expect(checkBudget(usage({ used: totals(1, 0, 0.5) }), budget(), priced(0.5))).toEqual({ ok: true });
    expect(checkBudget(usage({ used: totals(1, 0, 0.5) }), budget(), priced(0.6))).toEqual({
      ok: false,
      cap: 'max_cost_usd',
      reason: 'max_cost_usd would be exceeded: $0.50 spent or reserved + $0.60 at the table price for the next call > $1.00',
    });
  });

  it('counts reservations, and an unpriced call adds nothing to the worst case', () => {
    expect(checkBudget(usage({ used: totals(1, 0, 0.3), reserved: totals(1, 0, 0.3) }), budget(), priced(0.5)).ok).toBe(false);
    expect(checkBudget(usage({ used: totals(1, 0, 0.99) }), budget(), call()).ok).toBe(true);
    expect(checkBudget(usage({ used: totals(1, 0, 0.99) }), budget({ max_cost_usd: undefined }), priced(5)).ok).toBe(true);
  });

  it('holds a provider’s own cost cap the same way, naming it', () => {
    const b = budget({ per_provider: { xai: { max_cost_usd: 0.2 } } });
    const u = usage({ used: totals(1, 0, 0.1), usedByProvider: { xai: totals(1, 0, 0.1) } });
    expect(checkBudget(u, b, priced(0.1, 'xai'))).toEqual({ ok: true });
    expect(checkBudget(u, b, priced(0.15, 'xai'))).toEqual({
      ok: false,
      cap: 'per_provider.xai.max_cost_usd',
      reason: 'per_provider.xai.max_cost_usd would be exceeded: $0.10 spent or reserved + $0.15 at the table price for the next call > $0.20',
    });
    // The same call to a provider without caps only meets the run-wide cap.
    expect(checkBudget(u, b, priced(0.15, 'anthropic'))).toEqual({ ok: true });
  });

  it('names what was spent when a provider’s cost cap is reached, in cents or below', () => {
    const b = budget({ per_provider: { xai: { max_cost_usd: 0.005 } } });
    expect(checkBudget(usage({ usedByProvider: { xai: totals(1, 0, 0.005) } }), b, call(1, 'xai'))).toEqual({
      ok: false,
      cap: 'per_provider.xai.max_cost_usd',
      reason: 'per_provider.xai.max_cost_usd reached: $0.0050 of $0.0050 spent or reserved',
    });
  });
});

describe('per-provider token caps', () => {
  it('names the provider cap and the figures when the estimate would exceed it', () => {
    const b = budget({ per_provider: { xai: { max_tokens: 500 } } });
    const u = usage({ usedByProvider: { xai: totals(1, 450) } });
    expect(checkBudget(u, b, call(50, 'xai'))).toEqual({ ok: true });
    expect(checkBudget(u, b, call(51, 'xai'))).toEqual({
      ok: false,
      cap: 'per_provider.xai.max_tokens',
      reason: 'per_provider.xai.max_tokens would be exceeded: 450 tokens used or reserved + 51 estimated for the next call > 500',
    });
  });

  it('a run-wide cap is checked before the provider’s', () => {
    const b = budget({ max_calls: 1, per_provider: { xai: { max_calls: 1 } } });
    expect(checkBudget(usage({ used: totals(1), usedByProvider: { xai: totals(1) } }), b, call(1, 'xai'))).toMatchObject({ ok: false, cap: 'max_calls' });
  });
});

describe('providerExhausted: each of a provider’s caps', () => {
  const b = budget({ per_provider: { xai: { max_tokens: 500 }, gem: { max_cost_usd: 0.2 }, claude: { max_calls: 2, max_tokens: 500, max_cost_usd: 0.2 } } });

  it('is true once the provider’s tokens (used + reserved) reach its max_tokens', () => {
    expect(providerExhausted(usage({ usedByProvider: { xai: totals(1, 499) } }), b, 'xai')).toBe(false);
    expect(providerExhausted(usage({ usedByProvider: { xai: totals(1, 400) }, reservedByProvider: { xai: totals(1, 100) } }), b, 'xai')).toBe(true);
  });

  it('is true once the provider’s cost (used + reserved) reaches its max_cost_usd', () => {
    expect(providerExhausted(usage({ usedByProvider: { gem: totals(1, 0, 0.19) } }), b, 'gem')).toBe(false);
    expect(providerExhausted(usage({ usedByProvider: { gem: totals(1, 0, 0.1) }, reservedByProvider: { gem: totals(1, 0, 0.1) } }), b, 'gem')).toBe(true);
  });

  it('any one cap reached is enough, and none reached is not', () => {
    expect(providerExhausted(usage({ usedByProvider: { claude: totals(1, 10, 0.01) } }), b, 'claude')).toBe(false);
    expect(providerExhausted(usage({ usedByProvider: { claude: totals(2, 10, 0.01) } }), b, 'claude')).toBe(true);
    expect(providerExhausted(usage({ usedByProvider: { claude: totals(1, 500, 0.01) } }), b, 'claude')).toBe(true);
    expect(providerExhausted(usage({ usedByProvider: { claude: totals(1, 10, 0.2) } }), b, 'claude')).toBe(true);
  });

  it('a provider that has made no call yet is not exhausted', () => {
    expect(providerExhausted(usage(), b, 'claude')).toBe(false);
  });
});

describe('budgetWarnings: per-provider tokens and cost, and a zero cap', () => {
  it('warns about a provider’s tokens and cost at 80 %, not below', () => {
    const b = budget({ max_tokens: 100_000, max_cost_usd: 100, per_provider: { xai: { max_tokens: 500, max_cost_usd: 0.5 } } });
    const below = usage({ usedByProvider: { xai: totals(1, 399, 0.39) } });
    expect(budgetWarnings(below, b).warnings).toEqual([]);
    const at = usage({ usedByProvider: { xai: totals(1, 300, 0.2) }, reservedByProvider: { xai: totals(1, 100, 0.2) } });
    expect(budgetWarnings(at, b).warnings).toEqual([
      { cap: 'per_provider.xai.max_tokens', used: 400, limit: 500 },
      { cap: 'per_provider.xai.max_cost_usd', used: 0.4, limit: 0.5 },
    ]);
  });

  it('a cap of 0 (no call allowed at all) is never warned about', () => {
    // Built by hand: the schema asks for positive caps, the arithmetic must not divide by 0 anyway.
    const b: BudgetConfig = { ...budget(), per_provider: { xai: { max_calls: 0 } } };
    expect(budgetWarnings(usage({ usedByProvider: { xai: totals(1) } }), b).warnings).toEqual([]);
  });

  it('a cap below 80 % full is not warned about, and one already warned about is not warned again', () => {
    const u = usage({ used: totals(3, 799, 0.79), elapsedSeconds: 79 });
    expect(budgetWarnings(u, budget()).warnings).toEqual([]);
    const full = usage({ used: totals(4, 1000, 1), elapsedSeconds: 100 });
    const first = budgetWarnings(full, budget());
    expect(first.warnings.map((w) => w.cap)).toEqual(['max_calls', 'max_tokens', 'max_cost_usd', 'max_seconds']);
    expect(budgetWarnings(full, budget(), first.counters).warnings).toEqual([]);
  });
});

describe('budgetSummary with per-provider caps', () => {
  it('gives one line per provider: calls and tokens against their caps when set, cost only when capped', () => {
    const b = budget({ max_cost_usd: 2, per_provider: { xai: { max_calls: 3, max_tokens: 500, max_cost_usd: 0.5 }, gem: {} } });
    const u = usage({
      used: totals(3, 400, 0.251),
      usedByProvider: { xai: totals(2, 300, 0.25) },
      reservedByProvider: { gem: totals(1, 100, 0.001) },
      elapsedSeconds: 12.34,
    });
    expect(budgetSummary(u, b)).toBe(
      ['calls: 3 of 4', 'tokens: 400 of 1000', 'cost: $0.25 of $2.00', 'elapsed: 12.3 s of 100 s', 'xai: 2 of 3 calls, 300 of 500 tokens, $0.25 of $0.50', 'gem: 0 calls, 0 tokens'].join('\n'),
    );
  });

  it('counts calls that are done, not reserved, and names the unpriced ones', () => {
    const b = budget({ max_cost_usd: undefined, per_provider: { xai: { max_cost_usd: 0.001 } } });
    const u = { ...usage({ used: totals(2, 20, 0.0005), reserved: totals(5, 5000, 5), usedByProvider: { xai: totals(2, 20, 0.0005) } }), unpricedCalls: 1 };
    expect(budgetSummary(u, b)).toBe(['calls: 2 of 4', 'tokens: 20 of 1000', 'cost: $0.0005 + 1 call unpriced (no cap)', 'elapsed: 0 s of 100 s', 'xai: 2 calls, 20 tokens, $0.0005 of $0.0010'].join('\n'));
  });
});

describe('formatUsd', () => {
  it('shows cents, and four places below a cent so a small cost never reads as $0.00', () => {
    expect(formatUsd(1.5)).toBe('$1.50');
    expect(formatUsd(0.01)).toBe('$0.01');
    expect(formatUsd(0.0042)).toBe('$0.0042');
    expect(formatUsd(0)).toBe('$0.00');
  });
});

describe('caps across runs: a team’s and a project’s (the operator’s policy, issue 26)', () => {
  const team = (used: Partial<SharedUsage['used']>, caps: SharedUsage['caps']): SharedUsage => ({
    scope: 'teams.alpha',
    label: 'team alpha',
    caps,
    used: { callsToday: 0, usdToday: 0, usdTotal: 0, ...used },
  });

  it('max_calls_per_day counts every run’s calls used or in flight today, plus this one, and names the scope', () => {
    expect(checkScope(team({ callsToday: 2 }, { max_calls_per_day: 3 }), {})).toEqual({ ok: true });
    expect(checkScope(team({ callsToday: 3 }, { max_calls_per_day: 3 }), {})).toEqual({
      ok: false,
      cap: 'teams.alpha.max_calls_per_day',
      reason: 'teams.alpha.max_calls_per_day reached: 3 of 3 calls used or in flight today (team alpha, all runs)',
    });
    expect(checkScope(team({ callsToday: 0 }, { max_calls_per_day: 0 }), {}).ok).toBe(false);
  });

  it('max_usd_per_day and max_usd_total: reached, or exceeded by the next call at its table price', () => {
    expect(checkScope(team({ usdToday: 0.5 }, { max_usd_per_day: 1 }), { costUsd: 0.5 })).toEqual({ ok: true });
    expect(checkScope(team({ usdToday: 0.5 }, { max_usd_per_day: 1 }), { costUsd: 0.51 })).toEqual({
      ok: false,
      cap: 'teams.alpha.max_usd_per_day',
      reason: 'teams.alpha.max_usd_per_day would be exceeded: $0.50 spent or reserved today + $0.51 at the table price for the next call > $1.00 (team alpha, all runs)',
    });
    expect(checkScope(team({ usdToday: 1 }, { max_usd_per_day: 1 }), {})).toMatchObject({
      cap: 'teams.alpha.max_usd_per_day',
      reason: 'teams.alpha.max_usd_per_day reached: $1.00 of $1.00 spent or reserved today (team alpha, all runs)',
    });
    // Yesterday's spending counts against the total only.
    expect(checkScope(team({ usdToday: 0, usdTotal: 9.99 }, { max_usd_per_day: 1, max_usd_total: 10 }), { costUsd: 0.01 }).ok).toBe(true);
    expect(checkScope(team({ usdToday: 0, usdTotal: 10 }, { max_usd_per_day: 1, max_usd_total: 10 }), {})).toMatchObject({
      cap: 'teams.alpha.max_usd_total',
      reason: 'teams.alpha.max_usd_total reached: $10.00 of $10.00 spent or reserved (team alpha, all runs)',
    });
    expect(checkScope(team({ usdTotal: 50, callsToday: 50 }, {}), { costUsd: 5 }).ok).toBe(true); // a scope without caps holds nothing
  });

  it('checkBudget: the run’s caps first, then each shared scope in order (team, project), then the provider’s', () => {
    const project: SharedUsage = { scope: 'projects.dd-demo', label: 'project dd-demo', caps: { max_calls_per_day: 5 }, used: { callsToday: 5, usdToday: 0, usdTotal: 0 } };
    const u = usage({ used: totals(1), shared: [team({ callsToday: 1 }, { max_calls_per_day: 3 }), project] });
    expect(checkBudget(u, budget(), call())).toMatchObject({ ok: false, cap: 'projects.dd-demo.max_calls_per_day' });
    expect(checkBudget(usage({ used: totals(4), shared: [project] }), budget(), call())).toMatchObject({ cap: 'max_calls' });
    expect(checkBudget(usage({ usedByProvider: { anthropic: totals(1) }, shared: [team({ callsToday: 3 }, { max_calls_per_day: 3 })] }), budget({ per_provider: { anthropic: { max_calls: 1 } } }), call())).toMatchObject({
      cap: 'teams.alpha.max_calls_per_day',
    });
    expect(checkSharedScopes(usage(), {})).toEqual({ ok: true });
  });

  it('budgetWarnings: a scope cap at 80 % of all runs’ figures is warned about once per run, by its policy path', () => {
    const u = usage({ shared: [team({ callsToday: 8, usdToday: 0.1, usdTotal: 4.5 }, { max_calls_per_day: 10, max_usd_per_day: 1, max_usd_total: 5 })] });
    const first = budgetWarnings(u, budget({ max_calls: 100, max_tokens: 100000, max_cost_usd: 100 }));
    expect(first.warnings).toEqual([
      { cap: 'teams.alpha.max_calls_per_day', used: 8, limit: 10 },
      { cap: 'teams.alpha.max_usd_total', used: 4.5, limit: 5 },
    ]);
    expect(budgetWarnings(u, budget({ max_calls: 100, max_tokens: 100000, max_cost_usd: 100 }), first.counters).warnings).toEqual([]);
  });
});
