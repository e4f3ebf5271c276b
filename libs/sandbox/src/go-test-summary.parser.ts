import { outputLines, TestSummaryParser } from './test-summary';

/** `ok  	pkg	0.01s`, `FAIL	pkg	0.01s`, `FAIL	pkg [build failed]`, `?   	pkg	[no test files]`. */
const PACKAGE_LINE = /^(ok|FAIL|\?)\s+\S+\s+(?:\d+(?:\.\d+)?s|\(cached\)|\[[a-z ]+\])/;
const PACKAGE_DID_NOT_RUN = /^FAIL\s+\S+\s+\[(build|setup) failed\]/;

/**
 * `go test`: every `--- PASS:` / `--- FAIL:` line is one test (subtests included, as go
 * reports them). Without -v go prints no line for a passing test, so `passed` stays 0 and the
 * exit code speaks; counts are not invented from "ok" package lines. A package that failed to
 * build or set up, or a test binary that panicked, ran no tests: counted as an error each.
 */
export const goTestSummaryParser: TestSummaryParser = {
  name: 'go',
  parse(output) {
    let passed = 0;
    let failed = 0;
    let errors = 0;
    let recognised = false;
    for (const raw of outputLines(output)) {
      const line = raw.trimEnd();
      const test = /^\s*--- (PASS|FAIL|SKIP): \S/.exec(line);
      if (test) {
        recognised = true;
        if (test[1] === 'PASS') passed++;
        else if (test[1] === 'FAIL') failed++;
      } else if (PACKAGE_LINE.test(line)) {
        recognised = true;
        if (PACKAGE_DID_NOT_RUN.test(line)) errors++;
      } else if (/^panic: /.test(line)) {
        errors++;
      }
    }
    return recognised ? { passed, failed, errors } : null;
  },
};
