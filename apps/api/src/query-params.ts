import { z } from 'zod';
import { BuildRole, PanelRole, PanelStage, RunStatus, Stage } from '@roundtable/contracts';
import { ApiError } from './api-error';

/** A repeated parameter arrives as an array; the message covers that case too. */
const oneOf = <const T extends Record<string, string>>(name: string, values: T) =>
  z.enum(values, { error: `${name} must be one of ${Object.values(values).join(', ')} (given once)` });

/** The workflows a run can be (runs.workflow). */
export const WORKFLOWS = { build: 'build', panel: 'panel' } as const;

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
 * A run's calls are filtered by either workflow's names: the build's roles and stages, or the
 * panel's judges, moderator and stages (ROAST … APPEAL). One parameter for both workflows, so a
 * bad value's message lists each workflow's names, whichever workflow the run is.
 */
const bothWorkflows = (build: readonly string[], panel: readonly string[]) => [...new Set([...build, ...panel])];
const eitherWorkflow = (name: string, build: readonly string[], panel: readonly string[]) =>
  z.enum(Object.fromEntries(bothWorkflows(build, panel).map((v) => [v, v])), {
    error: `${name} must be a build ${name} (${build.join(', ')}) or a panel ${name} (${panel.join(', ')}), given once`,
  });

/** What the role and stage filters accept, for the OpenAPI document. */
export const CALL_ROLES = bothWorkflows(BuildRole.options, PanelRole.options);
export const CALL_STAGES = bothWorkflows(Stage.options, PanelStage.options);

export const CallListQuery = z.object({
  role: eitherWorkflow('role', BuildRole.options, PanelRole.options).optional(),
  stage: eitherWorkflow('stage', Stage.options, PanelStage.options).optional(),
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
