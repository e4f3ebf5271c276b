import { BudgetConfig } from '@roundtable/contracts';
import { budgetSummary, budgetWarnings, checkBudget, costLine, estimateTokens, providerExhausted } from './budget';
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
