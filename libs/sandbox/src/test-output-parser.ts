import { goTestSummaryParser } from './go-test-summary.parser';
import { jestSummaryParser, mochaSummaryParser, tapSummaryParser } from './js-test-summary.parsers';
import { outputLines, TestSummary, TestSummaryParser } from './test-summary';

export type { TestSummary, TestSummaryParser } from './test-summary';

/** pytest words that describe test outcomes; at least one must appear for a line to count. */
const PYTEST_OUTCOMES = new Set(['passed', 'failed', 'error', 'errors', 'skipped', 'xfailed', 'xpassed', 'deselected']);

/**
 * pytest's last line, with or without the `====` frame (-q drops it) and in any order:
 * "1 failed, 2 passed, 1 warning, 1 error in 1.38s", "no tests ran in 0.99s".
 * Scanning from the end because tests may print look-alike lines earlier.
 */
export const pytestSummaryParser: TestSummaryParser = {
  name: 'pytest',
  parse(output) {
    const lines = outputLines(output);
    for (let i = lines.length - 1; i >= 0; i--) {
      const body = lines[i]
        .trim()
        .replace(/^=+\s*/, '')
        .replace(/\s*=+$/, '')
        .replace(/\s+in\s+\d+(?:\.\d+)?s(?:\s+\([^)]*\))?$/, '');
      if (body === 'no tests ran') return { passed: 0, failed: 0, errors: 0 };

      const parts = body.split(/,\s*/).map((part) => /^(\d+) ([a-z]+(?: [a-z]+)?)$/.exec(part));
      if (parts.length === 0 || parts.some((m) => m === null)) continue;
      const counts = parts as RegExpExecArray[];
      if (!counts.some(([, , word]) => PYTEST_OUTCOMES.has(word))) continue;

      const count = (...words: string[]) =>
        counts.filter(([, , word]) => words.includes(word)).reduce((sum, [, n]) => sum + Number(n), 0);
      return { passed: count('passed'), failed: count('failed'), errors: count('error', 'errors') };
    }
    return null;
  },
};

/**
 * Tried in order; the first that recognises the output gives the counts. Order matters only
 * when one output could carry two frameworks' summaries (an npm script that also runs pytest):
 * pytest's line is the most specific, go's the least.
 */
export const TEST_SUMMARY_PARSERS: readonly TestSummaryParser[] = [
  pytestSummaryParser,
  tapSummaryParser,
  jestSummaryParser,
  mochaSummaryParser,
  goTestSummaryParser,
];

/**
 * Counts from the runner's own summary. When no parser recognises the output the counts are
 * zero and the exit code is the only verdict; counts are never guessed.
 */
export function parseTestSummary(output: string, exitCode: number): TestSummary {
  for (const parser of TEST_SUMMARY_PARSERS) {
    const summary = parser.parse(output, exitCode);
    if (summary) return summary;
  }
  return { passed: 0, failed: 0, errors: 0 };
}
