import { formatZodIssues } from '../agent/agent-schemas';
import { Preregistration, PreregistrationInput, criteriaOf } from './preregistration.schema';

/** A trading backtest, preregistered: the example the experiment workflow is built around. */
function backtestPrereg(over: Partial<PreregistrationInput> = {}): PreregistrationInput {
  return {
    title: 'Overnight momentum on large caps',
    hypothesis: 'Stocks in the top decile of 12-1 month momentum outperform overnight',
    expected_result: 'An out-of-sample Sharpe above 0.5 with drawdowns under 25%',
    method: {
      description: 'Walk-forward backtest, 2010-2018 in sample, 2019-2023 out of sample',
      command: 'python backtest.py --config momentum.yaml',
      metrics: ['sharpe_oos', 'max_drawdown', 'n_trades', 'total_return'],
      timeout_s: 600,
    },
    success_criteria: [{ expr: 'sharpe_oos >= 0.5 and max_drawdown <= 0.25' }, { expr: 'n_trades >= 100', note: 'enough trades to mean something' }],
    failure_criteria: [{ expr: 'sharpe_oos < 0' }, { expr: 'max_drawdown > 0.4 or total_return < -0.2' }],
    data: 'CRSP daily US equities 2010-2023, survivorship-free',
    domain: 'trading',
    ...over,
  };
}

function problems(input: unknown): string {
  const r = Preregistration.safeParse(input);
  return r.success ? '' : formatZodIssues(r.error);
}

describe('Preregistration', () => {
  it('accepts a trading backtest, filling the defaults', () => {
    const p = Preregistration.parse(backtestPrereg({ domain: undefined }));
    expect(p.assumptions).toEqual([]);
    expect(p.domain).toBe('general');
    expect(Preregistration.parse(backtestPrereg()).domain).toBe('trading');
  });

  it('names every missing field', () => {
    const { title: _t, data: _d, ...rest } = backtestPrereg();
    const text = problems({ ...rest, method: { description: 'x', metrics: ['a'] } });
    expect(text).toContain('title: ');
    expect(text).toContain('data: ');
    expect(text).toContain('method.command: ');
  });

  it('refuses empty criteria lists and unknown fields', () => {
    expect(problems(backtestPrereg({ failure_criteria: [] }))).toContain('failure_criteria: failure_criteria lists at least one criterion');
    expect(problems({ ...backtestPrereg(), verdict: 'PASS' })).toMatch(/verdict/);
    expect(problems(backtestPrereg({ method: { ...backtestPrereg().method, timeout_s: 7200 } }))).toContain('method.timeout_s: timeout_s is at most 3600');
  });

  it('names an unknown metric with its path and the metrics the method produces', () => {
    const text = problems(backtestPrereg({ success_criteria: [{ expr: 'sharpe >= 0.5' }] }));
    expect(text).toBe(
      'success_criteria.0.expr: unknown metric "sharpe" at column 1 (the method produces: sharpe_oos, max_drawdown, n_trades, total_return)',
    );
  });

  it('names a parse error with its path and column', () => {
    expect(problems(backtestPrereg({ failure_criteria: [{ expr: 'sharpe_oos < 0' }, { expr: 'max_drawdown > ' }] }))).toBe(
      'failure_criteria.1.expr: column 16: expected a number or a metric name, found the end of the criterion',
    );
    expect(problems(backtestPrereg({ success_criteria: [{ expr: 'sharpe_oos' }] }))).toBe(
      'success_criteria.0.expr: column 1: a criterion must compare, e.g. sharpe >= 0.5',
    );
  });

  it('refuses a criterion with no threshold', () => {
    expect(problems(backtestPrereg({ success_criteria: [{ expr: 'sharpe_oos > max_drawdown' }] }))).toBe(
      'success_criteria.0.expr: compares metrics with no threshold; name a number, e.g. sharpe >= 0.5',
    );
  });

  it('refuses a metric listed twice, a bad metric name and a reserved word', () => {
    const method = backtestPrereg().method;
    expect(problems(backtestPrereg({ method: { ...method, metrics: [...method.metrics, 'n_trades'] } }))).toBe(
      'method.metrics.4: metric "n_trades" is listed twice; name each metric once',
    );
    expect(problems(backtestPrereg({ method: { ...method, metrics: ['Sharpe', ...method.metrics] } }))).toContain('method.metrics.0: a metric name is lowercase');
    expect(problems(backtestPrereg({ method: { ...method, metrics: ['or', ...method.metrics] } }))).toContain('method.metrics.0: and, or and not are words');
  });

  it('checks ids: S for success, F for failure, unique once positions are filled in', () => {
    expect(problems(backtestPrereg({ success_criteria: [{ id: 'F9', expr: 'n_trades > 1' }] }))).toBe(
      "success_criteria.0.id: a success criterion's id starts with S",
    );
    expect(problems(backtestPrereg({ success_criteria: [{ id: 'S2', expr: 'n_trades > 1' }, { expr: 'n_trades > 2' }] }))).toMatch(
      /^\(root\): criterion ids are unique; S2 is used twice/,
    );
    expect(problems(backtestPrereg({ success_criteria: [{ id: 'S0', expr: 'n_trades > 1' }] }))).toContain('success_criteria.0.id: id is S1, S2');
  });
});

describe('criteriaOf', () => {
  it('lists successes then failures, with ids by position where absent', () => {
    const p = Preregistration.parse(
      backtestPrereg({ failure_criteria: [{ expr: 'sharpe_oos < 0' }, { id: 'F7', expr: 'total_return < -0.2', note: 'a loss' }] }),
    );
    expect(criteriaOf(p)).toEqual([
      { id: 'S1', kind: 'success', expr: 'sharpe_oos >= 0.5 and max_drawdown <= 0.25' },
      { id: 'S2', kind: 'success', expr: 'n_trades >= 100', note: 'enough trades to mean something' },
      { id: 'F1', kind: 'failure', expr: 'sharpe_oos < 0' },
      { id: 'F7', kind: 'failure', expr: 'total_return < -0.2', note: 'a loss' },
    ]);
  });
});
