import { EXPERIMENT_DECISIONS, ExperimentDecision, decideExperiment, metricsFromOutput, metricsProblems } from './experiment-decision';
import { Preregistration } from './preregistration.schema';

const prereg = Preregistration.parse({
  title: 'Overnight momentum',
  hypothesis: 'Top-decile momentum outperforms overnight',
  expected_result: 'Sharpe above 0.5 out of sample',
  method: {
    description: 'Walk-forward backtest',
    command: 'python backtest.py',
    metrics: ['sharpe_oos', 'max_drawdown', 'n_trades', 'total_return'],
  },
  success_criteria: [{ expr: 'sharpe_oos >= 0.5' }, { expr: 'n_trades >= 100' }],
  failure_criteria: [{ expr: 'sharpe_oos < 0' }, { expr: 'max_drawdown > 0.4' }],
  data: 'CRSP daily',
});

describe('ExperimentDecision', () => {
  it('is PASS, KILL or INCONCLUSIVE', () => {
    expect(ExperimentDecision.options).toEqual([...EXPERIMENT_DECISIONS]);
    expect(ExperimentDecision.safeParse('MAYBE').success).toBe(false);
  });
});

describe('decideExperiment: the decision table', () => {
  // sharpe_oos and max_drawdown pick which failure criteria hold; sharpe_oos and n_trades which successes.
  it.each([
    ['a failure holds and every success holds', { sharpe_oos: 0.9, n_trades: 500, max_drawdown: 0.5 }, 'KILL', [true, true, false, true]],
    ['a failure holds and no success holds', { sharpe_oos: -0.2, n_trades: 10, max_drawdown: 0.1 }, 'KILL', [false, false, true, false]],
    ['every failure holds', { sharpe_oos: -0.2, n_trades: 10, max_drawdown: 0.5 }, 'KILL', [false, false, true, true]],
    ['no failure holds and every success holds', { sharpe_oos: 0.9, n_trades: 500, max_drawdown: 0.1 }, 'PASS', [true, true, false, false]],
    ['no failure holds and some successes hold', { sharpe_oos: 0.9, n_trades: 10, max_drawdown: 0.1 }, 'INCONCLUSIVE', [true, false, false, false]],
    ['no failure holds and no success holds', { sharpe_oos: 0.2, n_trades: 10, max_drawdown: 0.1 }, 'INCONCLUSIVE', [false, false, false, false]],
  ])('%s: %j is %s', (_row, metrics, decision, holds) => {
    const outcome = decideExperiment(prereg, { total_return: 0, ...metrics });
    expect(outcome.decision).toBe(decision);
    expect(outcome.criteria.map((c) => c.holds)).toEqual(holds);
  });

  it('records every criterion with its id, kind and text', () => {
    expect(decideExperiment(prereg, { sharpe_oos: 1, n_trades: 200, max_drawdown: 0.1, total_return: 0.3 }).criteria).toEqual([
      { id: 'S1', kind: 'success', expr: 'sharpe_oos >= 0.5', holds: true },
      { id: 'S2', kind: 'success', expr: 'n_trades >= 100', holds: true },
      { id: 'F1', kind: 'failure', expr: 'sharpe_oos < 0', holds: false },
      { id: 'F2', kind: 'failure', expr: 'max_drawdown > 0.4', holds: false },
    ]);
  });

  it('throws naming a metric with no value rather than deciding without it', () => {
    expect(() => decideExperiment(prereg, { sharpe_oos: 1, n_trades: 200 })).toThrow('"max_drawdown"');
  });
});

describe('metricsProblems', () => {
  const all = { sharpe_oos: 0.7, max_drawdown: 0.2, n_trades: 150, total_return: 0.4 };

  it('is null when every declared metric is a finite number (extra keys are fine)', () => {
    expect(metricsProblems(prereg, { ...all, turnover: 'high' })).toBeNull();
  });

  it('names the missing and the non-numeric metrics', () => {
    const { n_trades: _n, ...rest } = all;
    expect(metricsProblems(prereg, { ...rest, sharpe_oos: 'abc' })).toBe('missing metrics: n_trades; non-numeric metrics: sharpe_oos ("abc")');
    expect(metricsProblems(prereg, { ...all, max_drawdown: null, total_return: '0.4' })).toBe(
      'non-numeric metrics: max_drawdown (null), total_return ("0.4")',
    );
    expect(metricsProblems(prereg, {})).toBe('missing metrics: sharpe_oos, max_drawdown, n_trades, total_return');
  });

  it('counts non-finite numbers as non-numeric', () => {
    expect(metricsProblems(prereg, { ...all, sharpe_oos: Infinity, n_trades: NaN })).toBe(
      'non-numeric metrics: sharpe_oos (Infinity), n_trades (NaN)',
    );
  });

  it('refuses what is not an object', () => {
    expect(metricsProblems(prereg, [1, 2])).toBe('the metrics are not a JSON object (found [1,2])');
    expect(metricsProblems(prereg, null)).toBe('the metrics are not a JSON object (found null)');
  });
});

describe('metricsFromOutput', () => {
  it('takes the last line that is a JSON object', () => {
    const stdout = ['loading data', '{"sharpe_oos": 0.1}', 'fold 2/2', '  {"sharpe_oos": 0.7, "n_trades": 150}  ', '[1,2]', '42', 'done', ''].join('\n');
    expect(metricsFromOutput(stdout)).toEqual({ sharpe_oos: 0.7, n_trades: 150 });
  });

  it('skips a line that only looks like an object, and reads CRLF output', () => {
    expect(metricsFromOutput('{"a": 1}\r\n{not json}\r\n')).toEqual({ a: 1 });
  });

  it('is null when no line is a JSON object', () => {
    expect(metricsFromOutput('')).toBeNull();
    expect(metricsFromOutput('[{"a":1}]\n3\n"x"\nnull')).toBeNull();
    expect(metricsFromOutput('{"a": 1,\n "b": 2}')).toBeNull(); // pretty-printed JSON spans lines: print it on one
  });
});
