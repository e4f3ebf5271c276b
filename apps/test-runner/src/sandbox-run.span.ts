import type { TestRunner, TestRunOutcome, TestRunRequest } from '@roundtable/sandbox';
import {
  ATTR_RUN_ID,
  ATTR_SANDBOX_EXIT_CODE,
  ATTR_SANDBOX_RUNNER,
  ATTR_SANDBOX_TIMED_OUT,
  ATTR_TESTS_FAILED,
  ATTR_TESTS_PASSED,
  inSpan,
  SPAN,
} from '@roundtable/observability';

/**
 * One test run as a span (`roundtable.sandbox.run`, inside the tests.run op's span): the runner
 * kind and what the run ended with. A failing test suite is an outcome, not an error; only a run
 * the runner could not make (the engine refused it) marks the span ERROR.
 */
export function runInSandboxSpan(runner: TestRunner, req: TestRunRequest): Promise<TestRunOutcome> {
  return inSpan(SPAN.sandboxRun, { [ATTR_SANDBOX_RUNNER]: runner.kind, ...(req.runId ? { [ATTR_RUN_ID]: req.runId } : {}) }, async (span) => {
    const outcome = await runner.run(req);
    span.setAttributes({
      [ATTR_SANDBOX_EXIT_CODE]: outcome.exit_code,
      [ATTR_SANDBOX_TIMED_OUT]: outcome.timed_out,
      [ATTR_TESTS_PASSED]: outcome.passed,
      [ATTR_TESTS_FAILED]: outcome.failed,
    });
    return outcome;
  });
}
