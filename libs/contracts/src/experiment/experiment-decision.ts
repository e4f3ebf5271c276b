import { z } from 'zod';
import { evaluateCriterion, parseCriterion } from './criterion-language';
import { criteriaOf, type CriterionKind, type Preregistration } from './preregistration.schema';

/**
 * An experiment's decision is computed here, by code, from the locked criteria and the measured
 * metrics; the interpreter agent only explains it. Failure is checked first: a result that meets
 * a kill criterion is killed however good its other numbers look.
 */
export const EXPERIMENT_DECISIONS = ['PASS', 'KILL', 'INCONCLUSIVE'] as const;
export const ExperimentDecision = z.enum(EXPERIMENT_DECISIONS);
export type ExperimentDecision = z.infer<typeof ExperimentDecision>;

export interface CriterionOutcome {
  id: string;
  kind: CriterionKind;
  expr: string;
  holds: boolean;
}

export interface ExperimentOutcome {
  decision: ExperimentDecision;
  criteria: CriterionOutcome[];
}

/**
 * KILL if any failure criterion holds, else PASS if every success criterion holds, else
 * INCONCLUSIVE. Every criterion is evaluated (not just until the decision is known) so the
 * record shows each one. Throws if a metric a criterion reads has no value: check
 * metricsProblems first.
 */
export function decideExperiment(prereg: Preregistration, metrics: Record<string, number>): ExperimentOutcome {
  const criteria = criteriaOf(prereg).map(({ id, kind, expr }) => ({
    id,
    kind,
    expr,
    holds: evaluateCriterion(parseCriterion(expr, prereg.method.metrics), metrics),
  }));
  const failures = criteria.filter((c) => c.kind === 'failure');
  const successes = criteria.filter((c) => c.kind === 'success');
  const decision: ExperimentDecision = failures.some((c) => c.holds)
    ? 'KILL'
    : successes.length > 0 && successes.every((c) => c.holds)
      ? 'PASS'
      : 'INCONCLUSIVE';
  return { decision, criteria };
}

/**
 * What is wrong with the metrics the command printed, as one line for the run's record (or the
 * engineer's fix): every declared metric that is missing, and every one that is not a finite
 * number. Null when all are there.
 */
export function metricsProblems(prereg: { method: { metrics: readonly string[] } }, raw: unknown): string | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return `the metrics are not a JSON object (found ${shown(raw)})`;
  }
  const record = raw as Record<string, unknown>;
  const missing: string[] = [];
  const nonNumeric: string[] = [];
  for (const name of prereg.method.metrics) {
    if (!Object.prototype.hasOwnProperty.call(record, name) || record[name] === undefined) missing.push(name);
    else if (typeof record[name] !== 'number' || !Number.isFinite(record[name])) nonNumeric.push(`${name} (${shown(record[name])})`);
  }
  const parts = [
    missing.length ? `missing metrics: ${missing.join(', ')}` : '',
    nonNumeric.length ? `non-numeric metrics: ${nonNumeric.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : null;
}

function shown(value: unknown): string {
  if (typeof value === 'number') return String(value); // NaN and Infinity have no JSON form
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * The metrics in a command's stdout: the last line that is a JSON object. Last, because a
 * backtest prints progress (and sometimes other JSON) before its result; an object, because an
 * array or a bare number names no metrics. Null when no line is one.
 */
export function metricsFromOutput(stdout: string): Record<string, unknown> | null {
  const lines = stdout.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line.startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not JSON after all: keep looking upwards
    }
  }
  return null;
}
