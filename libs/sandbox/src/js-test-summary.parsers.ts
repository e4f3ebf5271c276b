import { outputLines, TestSummary, TestSummaryParser } from './test-summary';

/**
 * `node --test` (TAP reporter: "# pass 2"; spec reporter: "ℹ pass 2") and other TAP producers
 * (tape: "# pass  2"). The spec reporter prints the failure details after its summary, so the
 * last occurrence of each count anywhere in the output wins. A cancelled test (a hook failed,
 * a timeout) did not get to pass or fail: counted as an error.
 */
export const tapSummaryParser: TestSummaryParser = {
  name: 'tap',
  parse(output) {
    const counts = new Map<string, number>();
    for (const line of outputLines(output)) {
      const m = /^(?:#|ℹ)\s*(pass|fail|cancelled)\s+(\d+)\s*$/.exec(line.trim());
      if (m) counts.set(m[1], Number(m[2]));
    }
    if (!counts.has('pass') && !counts.has('fail')) return null;
    return { passed: counts.get('pass') ?? 0, failed: counts.get('fail') ?? 0, errors: counts.get('cancelled') ?? 0 };
  },
};

/**
 * Jest and Vitest under `npm test`: "Tests:       1 failed, 3 passed, 4 total" (jest),
 * "Tests  1 failed | 3 passed (4)" (vitest). The last such line is the run's total.
 */
export const jestSummaryParser: TestSummaryParser = {
  name: 'jest',
  parse(output) {
    const lines = outputLines(output);
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = /^\s*Tests:?\s+(.*\d.*?)\s*$/.exec(lines[i]);
      if (!m || !/\b(passed|failed)\b/.test(m[1])) continue;
      return countWords(m[1], { passed: ['passed'], failed: ['failed'], errors: [] });
    }
    return null;
  },
};

/** Mocha's "  3 passing (12ms)" / "  1 failing", printed once at the end. */
export const mochaSummaryParser: TestSummaryParser = {
  name: 'mocha',
  parse(output) {
    let passed: number | null = null;
    let failed = 0;
    for (const line of outputLines(output)) {
      const m = /^\s*(\d+) (passing|failing)(?: \(\d+(?:\.\d+)?m?s\))?\s*$/.exec(line);
      if (!m) continue;
      if (m[2] === 'passing') passed = Number(m[1]);
      else failed = Number(m[1]);
    }
    return passed === null ? null : { passed, failed, errors: 0 };
  },
};

function countWords(text: string, words: Record<keyof TestSummary, string[]>): TestSummary {
  const sum = (ws: string[]) =>
    [...text.matchAll(/(\d+)\s+([a-z]+)/g)].filter(([, , w]) => ws.includes(w)).reduce((n, [, c]) => n + Number(c), 0);
  return { passed: sum(words.passed), failed: sum(words.failed), errors: sum(words.errors) };
}
