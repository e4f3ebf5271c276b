import { jestSummaryParser, mochaSummaryParser, tapSummaryParser } from './js-test-summary.parsers';
import { parseTestSummary } from './test-output-parser';

// Captured from `node --test` (Node 20, TAP reporter, the default when stdout is not a TTY).
const NODE_TAP = [
  'TAP version 13',
  '# Subtest: ok',
  'ok 1 - ok',
  '# Subtest: bad',
  'not ok 2 - bad',
  '  ---',
  "  error: 'Expected values to be strictly equal:\\n\\n1 !== 2\\n'",
  '  ...',
  '1..4',
  '# tests 6',
  '# suites 0',
  '# pass 2',
  '# fail 3',
  '# cancelled 0',
  '# skipped 1',
  '# todo 0',
  '# duration_ms 1010.645838',
  '',
].join('\n');

// `node --test --test-reporter=spec`: the failure details come after the summary.
const NODE_SPEC = [
  '✔ ok (0.5ms)',
  '✖ bad (1.2ms)',
  'ℹ tests 6',
  'ℹ suites 0',
  'ℹ pass 2',
  'ℹ fail 3',
  'ℹ cancelled 1',
  'ℹ skipped 1',
  'ℹ todo 0',
  'ℹ duration_ms 767.317753',
  '',
  '✖ failing tests:',
  '',
  'test at a.test.js:3:1',
  '✖ bad (1.2ms)',
  '  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
].join('\n');

describe('tapSummaryParser (node --test, tape)', () => {
  it('reads the TAP reporter summary', () => {
    expect(tapSummaryParser.parse(NODE_TAP, 1)).toEqual({ passed: 2, failed: 3, errors: 0 });
  });

  it('reads the spec reporter summary even though failure details follow it; cancelled counts as errors', () => {
    expect(tapSummaryParser.parse(NODE_SPEC, 1)).toEqual({ passed: 2, failed: 3, errors: 1 });
  });

  it('reads tape output (two spaces, no fail line when all pass)', () => {
    expect(tapSummaryParser.parse('ok 1 should be equal\n\n1..1\n# tests 1\n# pass  1\n\n# ok\n', 0)).toEqual({
      passed: 1,
      failed: 0,
      errors: 0,
    });
  });

  it('reads npm test wrapping node --test, with ANSI colours', () => {
    const out = '\n> calc@1.0.0 test\n> node --test\n\n' + NODE_TAP.replace('# fail 3', '\u001b[31m# fail 3\u001b[39m');
    expect(parseTestSummary(out, 1)).toEqual({ passed: 2, failed: 3, errors: 0 });
  });

  it('does not match a comment that merely mentions passing', () => {
    expect(tapSummaryParser.parse('# pass the salt\n# tests 3\n', 0)).toBeNull();
  });
});

describe('jestSummaryParser (npm test with jest or vitest)', () => {
  it.each([
    ['Tests:       1 failed, 3 passed, 4 total', { passed: 3, failed: 1, errors: 0 }],
    ['Tests:       2 skipped, 5 passed, 7 total', { passed: 5, failed: 0, errors: 0 }],
    ['      Tests  1 failed | 3 passed (4)', { passed: 3, failed: 1, errors: 0 }],
  ])('%s', (line, expected) => {
    const out = `PASS src/a.test.ts\nTest Suites: 1 failed, 1 passed, 2 total\n${line}\nSnapshots:   0 total\nTime:        1.2 s\n`;
    expect(jestSummaryParser.parse(out, 1)).toEqual(expected);
    expect(parseTestSummary(out, 1)).toEqual(expected);
  });

  it('ignores the Test Suites line and unrelated "Tests" lines', () => {
    expect(jestSummaryParser.parse('Test Suites: 2 passed, 2 total\nTests run by CI\n', 0)).toBeNull();
  });
});

describe('mochaSummaryParser (npm test with mocha)', () => {
  it('reads passing and failing', () => {
    const out = '  calc\n    ✓ adds\n    1) subtracts\n\n\n  3 passing (12ms)\n  1 pending\n  1 failing\n\n  1) calc\n       subtracts:\n     AssertionError';
    expect(mochaSummaryParser.parse(out, 1)).toEqual({ passed: 3, failed: 1, errors: 0 });
    expect(parseTestSummary(out, 1)).toEqual({ passed: 3, failed: 1, errors: 0 });
  });

  it('all passing', () => {
    expect(mochaSummaryParser.parse('\n  2 passing (4ms)\n', 0)).toEqual({ passed: 2, failed: 0, errors: 0 });
  });

  it('needs the passing line', () => {
    expect(mochaSummaryParser.parse('this test is failing\n', 1)).toBeNull();
  });
});
