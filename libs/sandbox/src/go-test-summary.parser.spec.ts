import { goTestSummaryParser } from './go-test-summary.parser';
import { parseTestSummary } from './test-output-parser';

describe('goTestSummaryParser', () => {
  it('counts --- PASS / --- FAIL lines of go test -v, subtests included, skips not', () => {
    const out = [
      '=== RUN   TestAdd',
      '--- PASS: TestAdd (0.00s)',
      '=== RUN   TestSub',
      '    calc_test.go:12: got 1, want 2',
      '--- FAIL: TestSub (0.00s)',
      '=== RUN   TestTable',
      '=== RUN   TestTable/zero',
      '=== RUN   TestTable/neg',
      '--- FAIL: TestTable (0.00s)',
      '    --- PASS: TestTable/zero (0.00s)',
      '    --- FAIL: TestTable/neg (0.00s)',
      '=== RUN   TestSkip',
      '--- SKIP: TestSkip (0.00s)',
      'FAIL',
      'FAIL\texample.com/calc\t0.003s',
      'FAIL',
    ].join('\n');
    expect(goTestSummaryParser.parse(out, 1)).toEqual({ passed: 2, failed: 3, errors: 0 });
    expect(parseTestSummary(out, 1)).toEqual({ passed: 2, failed: 3, errors: 0 });
  });

  it('without -v: failing tests are counted, passing ones are not invented from "ok" package lines', () => {
    const out = ['--- FAIL: TestSub (0.00s)', '    calc_test.go:12: got 1', 'FAIL', 'FAIL\texample.com/calc\t0.002s', 'ok  \texample.com/other\t0.001s', 'FAIL'].join('\n');
    expect(goTestSummaryParser.parse(out, 1)).toEqual({ passed: 0, failed: 1, errors: 0 });
  });

  it('an all-ok run without -v is recognised (zeros, exit code decides)', () => {
    const out = 'ok  \texample.com/calc\t0.002s\n?   \texample.com/cmd\t[no test files]\nok  \texample.com/util\t(cached)\n';
    expect(goTestSummaryParser.parse(out, 0)).toEqual({ passed: 0, failed: 0, errors: 0 });
  });

  it('a package that does not build and a panicking test binary are errors', () => {
    const out = [
      '# example.com/broken',
      './broken.go:3:1: syntax error: non-declaration statement outside function body',
      'FAIL\texample.com/broken [build failed]',
      'panic: runtime error: index out of range [3] with length 3',
      'FAIL\texample.com/calc\t0.004s',
      'FAIL',
    ].join('\n');
    expect(goTestSummaryParser.parse(out, 2)).toEqual({ passed: 0, failed: 0, errors: 2 });
  });

  it('does not claim output that has no go test lines', () => {
    expect(goTestSummaryParser.parse('FAIL: something else\nok computer\n', 1)).toBeNull();
  });
});
