import { lastJsonObjectLine, metricProblems, readMetrics } from './read-metrics';

const base = { declared: ['sharpe_oos', 'n_trades'], fileText: null, fileShownAs: '/workspace/.roundtable/metrics.json', output: '', exitCode: 0, timedOut: false };

describe('readMetrics', () => {
  it('reads the file when it holds a JSON object, keeping the declared metrics only', () => {
    expect(readMetrics({ ...base, fileText: '{"sharpe_oos": 1.25, "n_trades": 14, "extra": 3}', output: '{"sharpe_oos": 9, "n_trades": 9}\n' })).toEqual({
      metrics: { sharpe_oos: 1.25, n_trades: 14 },
      metrics_error: null,
      metrics_source: 'file',
    });
  });

  it('falls back to the last JSON object line of the output, skipping notes after it and other JSON before it', () => {
    const output = 'starting\n{"sharpe_oos": 0.1, "n_trades": 1}\n[1, 2]\n  {"sharpe_oos": -0.4, "n_trades": 7}  \n{not json}\n[runner: process] a note\n';
    expect(readMetrics({ ...base, output })).toEqual({ metrics: { sharpe_oos: -0.4, n_trades: 7 }, metrics_error: null, metrics_source: 'stdout' });
    expect(readMetrics({ ...base, fileText: '[1]', output })).toMatchObject({ metrics_source: 'stdout' });
  });

  it('names missing and non-numeric metrics, and gives no metrics then', () => {
    expect(readMetrics({ ...base, output: '{"sharpe_oos": "abc"}\n' })).toEqual({
      metrics: null,
      metrics_error: 'missing metrics: n_trades; non-numeric metrics: sharpe_oos ("abc")',
      metrics_source: 'stdout',
    });
    expect(metricProblems(['a', 'b', 'c'], { a: null, b: true, c: 1 })).toBe('non-numeric metrics: a (null), b (true)');
  });

  it('says where it looked when nothing was found', () => {
    expect(readMetrics({ ...base, output: 'done\n' }).metrics_error).toBe(
      'no metrics found: /workspace/.roundtable/metrics.json was not written, and no line of the output is a JSON object',
    );
    expect(readMetrics({ ...base, fileText: 'oops', output: '' }).metrics_error).toBe(
      'no metrics found: /workspace/.roundtable/metrics.json does not hold a JSON object, and no line of the output is a JSON object',
    );
  });

  it('gives no metrics for a command that exited non-zero or timed out, whatever it printed', () => {
    expect(readMetrics({ ...base, exitCode: 2, output: '{"sharpe_oos": 1, "n_trades": 2}\n' })).toEqual({ metrics: null, metrics_error: 'the command exited 2', metrics_source: null });
    expect(readMetrics({ ...base, exitCode: 124, timedOut: true }).metrics_error).toBe('the command timed out (exit 124)');
  });

  it('finds no object in arrays, scalars or broken lines', () => {
    expect(lastJsonObjectLine('1\n"x"\n[{"a":1}]\n{"a":\n')).toBeNull();
  });
});
