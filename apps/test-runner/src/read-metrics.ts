/**
 * An experiment's metrics, read from what its command left: the metrics file if it holds a
 * JSON object, else the last line of the output that is one. Every declared metric must be
 * there and a finite number; otherwise there are no metrics, and the error says which were
 * missing or not numbers. Which line and which metrics are libs/contracts' rules
 * (experiment-decision.ts); what is the test-runner's is where it looks and what it says.
 */
import { metricsFromOutput, metricsProblems } from '@roundtable/contracts';

export interface MetricsReading {
  metrics: Record<string, number> | null;
  metrics_error: string | null;
  metrics_source: 'file' | 'stdout' | null;
}

type JsonObject = Record<string, unknown>;

function asObject(text: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : null;
  } catch {
    return null;
  }
}

/** The last line of the output that parses as a JSON object (contracts' rule, shared with anyone reading a method's output). */
export const lastJsonObjectLine = (output: string): JsonObject | null => metricsFromOutput(output);

/** `missing metrics: a, b; non-numeric metrics: c ("abc")`, or null when every declared metric is a finite number (contracts' metricsProblems). */
export const metricProblems = (declared: readonly string[], raw: JsonObject): string | null => metricsProblems({ method: { metrics: declared } }, raw);

export interface MetricsInput {
  declared: readonly string[];
  /** The metrics file's text, or null when there is none. */
  fileText: string | null;
  /** Where the file was looked for (as the command saw it), for the error when nothing is found. */
  fileShownAs: string;
  /** Why the file could not be read, if it exists but was refused (a link, not a regular file). */
  fileProblem?: string | null;
  /** Combined stdout and stderr. */
  output: string;
  exitCode: number;
  timedOut: boolean;
}

export function readMetrics(input: MetricsInput): MetricsReading {
  const none = (metrics_error: string): MetricsReading => ({ metrics: null, metrics_error, metrics_source: null });
  if (input.exitCode !== 0) return none(input.timedOut ? `the command timed out (exit ${input.exitCode})` : `the command exited ${input.exitCode}`);

  const fromFile = input.fileText === null ? null : asObject(input.fileText);
  const raw = fromFile ?? lastJsonObjectLine(input.output);
  if (!raw) {
    const file =
      input.fileProblem ?? (input.fileText === null ? `${input.fileShownAs} was not written` : `${input.fileShownAs} does not hold a JSON object`);
    return none(`no metrics found: ${file}, and no line of the output is a JSON object`);
  }
  const source = fromFile ? 'file' : 'stdout';
  const problems = metricProblems(input.declared, raw);
  if (problems) return { metrics: null, metrics_error: problems, metrics_source: source };
  return { metrics: Object.fromEntries(input.declared.map((name) => [name, raw[name] as number])), metrics_error: null, metrics_source: source };
}
