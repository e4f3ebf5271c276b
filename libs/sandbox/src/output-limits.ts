/**
 * How much of a test run's output is kept, shared by every runner so that a run's record
 * looks the same whether it ran in a container or as a plain process.
 */
export const OUTPUT_CAP_BYTES = 1024 * 1024;
export const OUTPUT_TAIL_BYTES = 64 * 1024;
/** What goes into prompts and TestResult.stdout_tail. */
export const STDOUT_TAIL_BYTES = 4 * 1024;
/** Head kept by OutputCapture: the cap minus the tail and room for the elision marker. */
export const OUTPUT_HEAD_BYTES = OUTPUT_CAP_BYTES - OUTPUT_TAIL_BYTES - 128;
/** After the command ends, how long something else may hold the output streams open. */
export const PIPE_DRAIN_GRACE_MS = 1000;
/** Same convention as coreutils `timeout`. */
export const TIMEOUT_EXIT_CODE = 124;
