export interface TestSummary {
  passed: number;
  failed: number;
  errors: number;
}

/** One per test framework; returns null when the output is not that framework's. */
export interface TestSummaryParser {
  readonly name: string;
  parse(output: string, exitCode: number): TestSummary | null;
}

const ANSI_ESCAPE = /\u001b\[[0-9;]*[A-Za-z]/g;

/** Output as lines, colour codes and CR removed: every parser reads lines, not bytes. */
export function outputLines(output: string): string[] {
  return output.replace(ANSI_ESCAPE, '').split(/\r?\n/);
}
