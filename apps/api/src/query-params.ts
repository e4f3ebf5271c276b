import { z } from 'zod';
import { RunStatus } from '@roundtable/contracts';
import { ApiError } from './api-error';
import { findApiWorkflow, WORKFLOW_NAMES } from './workflows/api-workflows';

/** A repeated parameter arrives as an array; the message covers that case too. */
const oneOf = <const T extends Record<string, string>>(name: string, values: T) =>
  z.enum(values, { error: `${name} must be one of ${Object.values(values).join(', ')} (given once)` });

/** The workflows a run can be (runs.workflow), from the api's workflow registry. */
export const WORKFLOWS: Readonly<Record<string, string>> = Object.fromEntries(WORKFLOW_NAMES.map((w) => [w, w]));

export const RunListQuery = z.object({
  status: oneOf('status', RunStatus.enum).optional(),
  workflow: oneOf('workflow', WORKFLOWS).optional(),
  limit: z
    .string({ error: 'limit must be given once' })
    .regex(/^\d+$/, 'limit must be a whole number between 1 and 500')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 500, 'limit must be a whole number between 1 and 500')
    .default(50),
});
export type RunListQuery = z.infer<typeof RunListQuery>;

/**
 * A run's calls are filtered by any workflow's names: the build's roles and stages, or the
 * panel's judges, moderator and stages (ROAST … APPEAL). One parameter for every workflow, so a
 * bad value's message lists each workflow's names, whichever workflow the run is.
 */
type CallFilter = 'role' | 'stage';
const filterValuesOf = (w: string, filter: CallFilter) => findApiWorkflow(w)!.callFilters[filter];
const everyWorkflow = (filter: CallFilter) => [...new Set(WORKFLOW_NAMES.flatMap((w) => filterValuesOf(w, filter)))];
const anyWorkflow = (filter: CallFilter) =>
  z.enum(Object.fromEntries(everyWorkflow(filter).map((v) => [v, v])), {
    error: `${filter} must be ${WORKFLOW_NAMES.map((w) => `a ${w} ${filter} (${filterValuesOf(w, filter).join(', ')})`).join(' or ')}, given once`,
  });

/** What the role and stage filters accept, for the OpenAPI document. */
export const CALL_ROLES = everyWorkflow('role');
export const CALL_STAGES = everyWorkflow('stage');

export const CallListQuery = z.object({
  role: anyWorkflow('role').optional(),
  stage: anyWorkflow('stage').optional(),
  failed: oneOf('failed', { true: 'true', false: 'false' })
    .transform((v) => v === 'true')
    .optional(),
});
export type CallListQuery = z.infer<typeof CallListQuery>;

/** Parses query parameters; a bad value is a 400 naming the parameter and what it accepts. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  throw ApiError.badRequest('invalid_query', issues.map((i) => i.message).join('; '), { issues });
}
