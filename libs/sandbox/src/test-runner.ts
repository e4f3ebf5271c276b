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
  /** The kernel killed a process of the run for exceeding the memory limit (container runner only). */
  oom_killed: boolean;
}

export interface TestRunRequest {
  workspace: string;
  command: string;
  timeoutMs: number;
  /** Which run this is for: a label on the container, so a leftover one can be traced. */
  runId?: string;
  /**
   * Variables added to the command's environment (names /^[A-Z_][A-Z0-9_]*$/, see requestEnv in
   * sandbox-env.ts): on top of the sandbox's own, never replacing them.
   */
  env?: Record<string, string>;
}

/** Implementations differ in containment (container by default, plain process on request), not in contract. */
export interface TestRunner {
  /** Recorded as test_runs.runner: 'docker' or 'process'. */
  readonly kind: string;
  run(req: TestRunRequest): Promise<TestRunOutcome>;
}
