/** What a test run produced, measured by the runner; never written by a model. */
export interface TestRunOutcome {
  command: string;
  exit_code: number;
  passed: number;
  failed: number;
  errors: number;
  duration_s: number;
  /** Last 4 KiB of combined stdout+stderr: what goes into prompts and TestResult. */
  stdout_tail: string;
  /** Combined stdout+stderr, capped at 1 MiB (head and tail kept, middle elided), for the artifact store. */
  output: string;
  timed_out: boolean;
}

export interface TestRunRequest {
  workspace: string;
  command: string;
  timeoutMs: number;
}

/** Implementations differ in containment (plain process now, container later), not in contract. */
export interface TestRunner {
  readonly kind: string;
  run(req: TestRunRequest): Promise<TestRunOutcome>;
}
