import { parseTestSummary, pytestSummaryParser } from './test-output-parser';

describe('parseTestSummary (pytest)', () => {
  it.each([
    ['1 failed, 4 passed in 0.03s', { passed: 4, failed: 1, errors: 0 }],
    ['5 passed in 0.01s', { passed: 5, failed: 0, errors: 0 }],
    ['2 errors in 0.1s', { passed: 0, failed: 0, errors: 2 }],
    ['1 failed, 2 passed, 1 error', { passed: 2, failed: 1, errors: 1 }],
    ['4 passed, 1 failed in 0.02s', { passed: 4, failed: 1, errors: 0 }],
    ['1 failed, 2 passed, 1 warning, 1 error in 1.38s', { passed: 2, failed: 1, errors: 1 }],
    ['=============== 1 failed, 2 passed, 1 warning, 1 error in 1.06s ================', { passed: 2, failed: 1, errors: 1 }],
    ['========================= 3 passed, 2 skipped, 1 xfailed in 0.50s =========================', { passed: 3, failed: 0, errors: 0 }],
    ['1 passed, 3 deselected in 0.12s', { passed: 1, failed: 0, errors: 0 }],
    ['12 passed, 5 warnings in 65.12s (0:01:05)', { passed: 12, failed: 0, errors: 0 }],
    ['no tests ran in 0.99s', { passed: 0, failed: 0, errors: 0 }],
  ])('%s', (line, expected) => {
    expect(parseTestSummary(line, 1)).toEqual(expected);
  });

  it('reads the final line of a full -q run, ignoring the FAILED/ERROR detail lines above it', () => {
    const output = [
      '..FE                                                                     [100%]',
      '==================================== ERRORS ====================================',
      "E       fixture 'fix' not found",
      '=================================== FAILURES ===================================',
      'E   assert 1 == 2',
      '=========================== short test summary info ============================',
      'FAILED test_a.py::test_bad - assert 1 == 2',
      'ERROR test_a.py::test_err',
      '1 failed, 2 passed, 1 warning, 1 error in 1.38s',
      '',
    ].join('\n');
    expect(parseTestSummary(output, 1)).toEqual({ passed: 2, failed: 1, errors: 1 });
  });

  it('uses the last summary-like line when a test printed a look-alike earlier', () => {
    const output = 'captured: 99 passed\n...\n=== 2 failed, 1 passed in 0.20s ===\n';
    expect(parseTestSummary(output, 1)).toEqual({ passed: 1, failed: 2, errors: 0 });
  });

  it('reads a collection error after the "Interrupted" banner', () => {
    const output = [
      'ERROR e/test_b.py',
      '!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!',
      '1 error in 1.27s',
    ].join('\n');
    expect(parseTestSummary(output, 2)).toEqual({ passed: 0, failed: 0, errors: 1 });
  });

  it('strips ANSI colour codes', () => {
    const output = '\u001b[31m\u001b[1m1 failed\u001b[0m, \u001b[32m3 passed\u001b[0m\u001b[31m in 0.05s\u001b[0m\n';
    expect(parseTestSummary(output, 1)).toEqual({ passed: 3, failed: 1, errors: 0 });
  });

  it('handles CRLF line endings', () => {
    expect(parseTestSummary('..\r\n2 passed in 0.01s\r\n', 0)).toEqual({ passed: 2, failed: 0, errors: 0 });
  });

  it.each([
    ['unknown framework output', 'Ran 3 tests in 0.001s\n\nOK\n'],
    ['a timeout with no summary', '....'],
    ['empty output', ''],
    ['counts of non-outcome words only', '3 warnings in 0.1s'],
  ])('returns zeros for %s so the exit code decides', (_name, output) => {
    expect(parseTestSummary(output, 1)).toEqual({ passed: 0, failed: 0, errors: 0 });
  });

  it('pytest parser reports no match (null) for foreign output, letting other parsers try', () => {
    expect(pytestSummaryParser.parse('PASS src/a.test.ts\nTests: 3 passed, 3 total', 0)).toBeNull();
  });
});

describe('parseTestSummary (the parser table)', () => {
  it.each([
    ['pytest', '3 passed in 0.1s\n', { passed: 3, failed: 0, errors: 0 }],
    ['node --test', '# tests 2\n# pass 1\n# fail 1\n', { passed: 1, failed: 1, errors: 0 }],
    ['go test', '--- FAIL: TestX (0.00s)\nFAIL\texample.com/x\t0.001s\n', { passed: 0, failed: 1, errors: 0 }],
  ])('routes %s output to its parser', (_name, output, expected) => {
    expect(parseTestSummary(output, 1)).toEqual(expected);
  });

  it('anything else is judged by the exit code alone (zero counts)', () => {
    expect(parseTestSummary('make: *** [check] Error 2\n', 2)).toEqual({ passed: 0, failed: 0, errors: 0 });
  });
});
