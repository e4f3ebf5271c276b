import { z } from 'zod';
import { CriterionSyntaxError, hasThreshold, parseCriterion } from './criterion-language';

/**
 * An experiment written down before it runs (issue 24): what is expected, how it is measured, and
 * the criteria that will decide it, as checkable expressions over the metrics the method names.
 * It is validated here, then hashed (canonicalJson) and locked, so the criteria cannot move after
 * the numbers are in.
 */

const METRIC_NAME = /^[a-z_][a-z0-9_]*$/;
// The criterion language reads these as operators, so a metric cannot be called by them.
const RESERVED = new Set(['and', 'or', 'not']);

export const CriterionInput = z
  .object({
    id: z
      .string()
      .regex(/^[SF][1-9][0-9]*$/, 'id is S1, S2 … for a success criterion or F1, F2 … for a failure criterion')
      .optional(),
    expr: z.string().min(1, 'expr is a comparison over the method\'s metrics, e.g. sharpe_oos >= 0.5'),
    note: z.string().optional(),
  })
  .strict();
export type CriterionInput = z.infer<typeof CriterionInput>;

export const ExperimentMethod = z
  .object({
    description: z.string().min(1, 'description says how the experiment is run'),
    // Run in the sandbox at the pinned commit; its last JSON-object line on stdout is the metrics.
    command: z.string().min(1, 'command is the shell command that prints the metrics as a JSON object'),
    metrics: z
      .array(
        z
          .string()
          .regex(METRIC_NAME, 'a metric name is lowercase letters, digits and _, starting with a letter or _')
          .refine((m) => !RESERVED.has(m), 'and, or and not are words of the criterion language, not metric names'),
      )
      .min(1, 'metrics names at least one metric the command prints'),
    timeout_s: z.number().int().positive().max(3600, 'timeout_s is at most 3600 (an hour)').optional(),
  })
  .strict();
export type ExperimentMethod = z.infer<typeof ExperimentMethod>;

export const ExperimentDomain = z.enum(['general', 'trading']);
export type ExperimentDomain = z.infer<typeof ExperimentDomain>;

export const Preregistration = z
  .object({
    title: z.string().min(1, 'title names the experiment'),
    hypothesis: z.string().min(1, 'hypothesis states what is believed and would be tested'),
    expected_result: z.string().min(1, 'expected_result says what the metrics should show if the hypothesis is right'),
    method: ExperimentMethod,
    success_criteria: z.array(CriterionInput).min(1, 'success_criteria lists at least one criterion'),
    failure_criteria: z.array(CriterionInput).min(1, 'failure_criteria lists at least one criterion: what would kill the idea'),
    data: z.string().min(1, 'data says what data is used and where it comes from'),
    assumptions: z.array(z.string()).default([]),
    domain: ExperimentDomain.default('general'),
  })
  .strict()
  .superRefine((p, ctx) => {
    // Written defensively: the shape may have failed too, and every problem is worth reporting at once.
    const metrics = Array.isArray(p.method?.metrics) ? p.method.metrics : [];
    metrics.forEach((m, i) => {
      if (metrics.indexOf(m) !== i) {
        ctx.addIssue({ code: 'custom', path: ['method', 'metrics', i], message: `metric "${m}" is listed twice; name each metric once` });
      }
    });
    for (const kind of ['success', 'failure'] as const) {
      const list = p[`${kind}_criteria`];
      if (!Array.isArray(list)) continue;
      list.forEach((c, i) => {
        const path = [`${kind}_criteria`, i];
        if (c?.id && c.id[0] !== (kind === 'success' ? 'S' : 'F')) {
          ctx.addIssue({ code: 'custom', path: [...path, 'id'], message: `a ${kind} criterion's id starts with ${kind === 'success' ? 'S' : 'F'}` });
        }
        if (typeof c?.expr !== 'string' || !c.expr) return;
        const problem = criterionProblem(c.expr, metrics);
        if (problem) ctx.addIssue({ code: 'custom', path: [...path, 'expr'], message: problem });
      });
    }
    const ids = criteriaOf(p).map((c) => c.id);
    const twice = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
    if (twice.length) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `criterion ids are unique; ${twice.join(', ')} ${twice.length === 1 ? 'is' : 'are'} used twice (an absent id is S or F and its position, from 1)`,
      });
    }
  });
export type Preregistration = z.infer<typeof Preregistration>;
export type PreregistrationInput = z.input<typeof Preregistration>;

function criterionProblem(expr: string, metrics: readonly string[]): string | null {
  try {
    const ast = parseCriterion(expr, metrics);
    // A criterion with no number in it can be met by almost any result: it decides nothing.
    if (!hasThreshold(ast)) return 'compares metrics with no threshold; name a number, e.g. sharpe >= 0.5';
    return null;
  } catch (e) {
    if (e instanceof CriterionSyntaxError) return e.message;
    throw e;
  }
}

export type CriterionKind = 'success' | 'failure';

export interface PreregisteredCriterion {
  id: string;
  kind: CriterionKind;
  expr: string;
  note?: string;
}

/**
 * Every criterion with its id and kind, successes first. An absent id is S or F and the
 * criterion's 1-based position in its list, so S1 is always the first success criterion unless
 * the author named it otherwise.
 */
export function criteriaOf(prereg: Pick<Preregistration, 'success_criteria' | 'failure_criteria'>): PreregisteredCriterion[] {
  const of = (list: readonly CriterionInput[] | undefined, kind: CriterionKind, prefix: string) =>
    (Array.isArray(list) ? list : []).map((c, i) => ({
      id: c?.id ?? `${prefix}${i + 1}`,
      kind,
      expr: c?.expr,
      ...(c?.note !== undefined ? { note: c.note } : {}),
    }));
  return [...of(prereg.success_criteria, 'success', 'S'), ...of(prereg.failure_criteria, 'failure', 'F')];
}
