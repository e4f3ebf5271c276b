import { formatZodIssues } from '../agent/agent-schemas';
import { TRADING_CHECKLIST, TRADING_CHECKLIST_KEYS, TradingCritique } from './trading-critique.schema';

function critique(): Record<string, Record<string, unknown>> {
  const c: Record<string, Record<string, unknown>> = {};
  for (const { key } of TRADING_CHECKLIST) c[key] = { status: 'checked', evidence: `looked at ${key}` };
  c.multiple_testing_deflated_sharpe.n_trials = 12;
  return c;
}

function problems(input: unknown): string {
  const r = TradingCritique.safeParse(input);
  return r.success ? '' : formatZodIssues(r.error);
}

describe('TRADING_CHECKLIST', () => {
  it('has fifteen items with unique keys, each a question', () => {
    expect(TRADING_CHECKLIST).toHaveLength(15);
    expect(new Set(TRADING_CHECKLIST_KEYS).size).toBe(15);
    for (const { question } of TRADING_CHECKLIST) expect(question).toMatch(/\?$/);
    expect(TRADING_CHECKLIST_KEYS).toEqual(
      expect.arrayContaining([
        'look_ahead_bias',
        'survivorship_bias',
        'train_test_leakage',
        'transaction_costs_and_slippage',
        'sample_size',
        'multiple_testing_deflated_sharpe',
        'regime_dependence',
        'out_of_sample_split',
        'overfitting_parameter_count',
        'data_snooping_reuse',
        'liquidity_and_capacity',
        'execution_assumptions',
        'benchmark_choice',
        'risk_and_drawdown',
        'data_quality',
      ]),
    );
  });

  it('is the TradingCritique schema\'s fields, exactly', () => {
    expect(Object.keys(TradingCritique.shape).sort()).toEqual([...TRADING_CHECKLIST_KEYS].sort());
  });
});

describe('TradingCritique', () => {
  it('accepts every item answered', () => {
    const c = critique();
    c.survivorship_bias = { status: 'problem', evidence: 'the universe is today\'s S&P 500' };
    c.liquidity_and_capacity = { status: 'not_applicable', evidence: 'futures only, capacity far above the size' };
    expect(problems(c)).toBe('');
  });

  it('refuses a missing item, naming it', () => {
    const c = critique();
    delete c.multiple_testing_deflated_sharpe;
    delete c.data_quality;
    expect(problems(c)).toBe(
      'multiple_testing_deflated_sharpe: Required — every checklist item is answered: checked, not_applicable or problem, with evidence; ' +
        'data_quality: Required — every checklist item is answered: checked, not_applicable or problem, with evidence',
    );
  });

  it('refuses a bad status, empty evidence and an item that is not an object', () => {
    const c = critique();
    c.look_ahead_bias = { status: 'fine', evidence: '' };
    (c as Record<string, unknown>).sample_size = 'checked';
    expect(problems(c)).toBe(
      'look_ahead_bias.status: status is checked, not_applicable or problem; look_ahead_bias.evidence: evidence says what was looked at and what it showed; ' +
        'sample_size: sample_size is an object {status, evidence}',
    );
  });

  it('requires n_trials on the multiple-testing item, a whole number from 1', () => {
    const c = critique();
    delete c.multiple_testing_deflated_sharpe.n_trials;
    expect(problems(c)).toBe('multiple_testing_deflated_sharpe.n_trials: n_trials counts every variant tried, this one included (1 or more)');
    c.multiple_testing_deflated_sharpe.n_trials = 0;
    expect(problems(c)).toContain('multiple_testing_deflated_sharpe.n_trials: n_trials counts every variant tried');
    c.multiple_testing_deflated_sharpe.n_trials = 2.5;
    expect(problems(c)).toBe('multiple_testing_deflated_sharpe.n_trials: n_trials is a whole number');
  });

  it('refuses an item not on the checklist', () => {
    expect(problems({ ...critique(), vibes: { status: 'checked', evidence: 'good' } })).toMatch(/vibes/);
  });
});
