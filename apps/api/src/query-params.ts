import { z } from 'zod';
import { RunStatus } from '@roundtable/contracts';
import { ApiError } from './api-error';
import { findApiWorkflow, WORKFLOW_NAMES } from './workflows/api-workflows';

/** A repeated parameter arrives as an array; the message covers that case too. */
const oneOf = <const T extends Record<string, string>>(name: string, values: T) =>
  z.enum(values, { error: `${name} must be one of ${Object.values(values).join(', ')} (given once)` });

/** The workflows a run can be (runs.workflow), from the api's workflow registry. */
export const WORKFLOWS: Readonly<Record<string, string>> = Object.fromEntries(WORKFLOW_NAMES.map((w) => [w, w]));

/** `from` / `to` on GET /v1/runs: an ISO date (a whole day, UTC) or a date-time with its zone. */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const dateFormHelp = (name: string) => `${name} must be an ISO date (2026-01-31) or date-time with its zone (2026-01-31T12:00:00Z, 2026-01-31T12:00:00+02:00), given once`;

/** A calendar day that exists (no 2026-02-30), whose fields are in range. */
function validDay(y: string, m: string, d: string): boolean {
  const t = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return t.getUTCFullYear() === Number(y) && t.getUTCMonth() === Number(m) - 1 && t.getUTCDate() === Number(d);
}

/**
 * The bound as an instant. A date alone is a whole UTC day: `from` starts at its first instant, `to`
 * takes it in full (the bound is the next day's start, exclusive). A date-time is the instant itself
 * (inclusive at both ends).
 */
export interface DateBound {
  at: Date;
  /** true: created_at < at; false: created_at <= at (to) or >= at (from). */
  exclusive: boolean;
}

const dateBound = (name: 'from' | 'to' | 'since') =>
  z.string({ error: dateFormHelp(name) }).transform((raw, ctx): DateBound => {
    const v = raw.trim();
    const day = ISO_DATE.exec(v);
    if (day && validDay(day[1], day[2], day[3])) {
      const start = new Date(`${v}T00:00:00.000Z`);
      return name === 'to' ? { at: new Date(start.getTime() + 86_400_000), exclusive: true } : { at: start, exclusive: false };
    }
    const dt = ISO_DATE_TIME.exec(v);
    const at = dt ? new Date(v) : null;
    if (dt && at && !Number.isNaN(at.getTime()) && validDay(dt[1], dt[2], dt[3]) && Number(dt[4]) < 24 && Number(dt[5]) < 60 && Number(dt[6] ?? 0) < 60) {
      return { at, exclusive: false };
    }
    ctx.addIssue({ code: 'custom', message: `${dateFormHelp(name)}; got ${JSON.stringify(raw)}` });
    return z.NEVER;
  });

/** Where a page of GET /v1/runs ended: the last run's created_at (to the microsecond, as Postgres keeps it) and id. */
export interface RunCursor {
  createdAt: string;
  id: string;
}

const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Opaque to clients: base64url of `created_at|id`. */
export function encodeRunCursor(c: RunCursor): string {
  return Buffer.from(`${c.createdAt}|${c.id}`, 'utf8').toString('base64url');
}

export function decodeRunCursor(raw: string): RunCursor | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(raw)) return null;
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  if (bar < 0) return null;
  const createdAt = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (!CURSOR_TIME.test(createdAt) || Number.isNaN(new Date(createdAt).getTime()) || !/^[A-Za-z0-9_-]{1,200}$/.test(id)) return null;
  return { createdAt, id };
}

const CURSOR_HELP = 'cursor must be a next cursor this api gave (the X-Next-Cursor header of an earlier page), given once';

export const RunListQuery = z
  .object({
    status: oneOf('status', RunStatus.enum).optional(),
    workflow: oneOf('workflow', WORKFLOWS).optional(),
    q: z
      .string({ error: 'q must be text, given once' })
      .max(200, 'q must be at most 200 characters')
      .transform((v) => v.trim())
      .optional(),
    from: dateBound('from').optional(),
    to: dateBound('to').optional(),
    cursor: z
      .string({ error: CURSOR_HELP })
      .transform((raw, ctx): RunCursor => {
        const c = decodeRunCursor(raw);
        if (c) return c;
        ctx.addIssue({ code: 'custom', message: CURSOR_HELP });
        return z.NEVER;
      })
      .optional(),
    limit: z
      .string({ error: 'limit must be given once' })
      .regex(/^\d+$/, 'limit must be a whole number between 1 and 500')
      .transform(Number)
      .refine((n) => n >= 1 && n <= 500, 'limit must be a whole number between 1 and 500')
      .default(50),
  })
  .superRefine((v, ctx) => {
    if (v.from && v.to && v.from.at.getTime() >= v.to.at.getTime() + (v.to.exclusive ? 0 : 1)) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must not be later than to' });
    }
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
    error: `${filter} must be ${WORKFLOW_NAMES.map((w) => `${/^[aeiou]/.test(w) ? 'an' : 'a'} ${w} ${filter} (${filterValuesOf(w, filter).join(', ')})`).join(' or ')}, given once`,
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

/** GET /v1/usage: which team and project, since when (a date is its first instant, UTC; default the start of today, UTC). */
export const UsageQuery = z.strictObject(
  {
  team: z.string({ error: 'team must be a team name, given once' }).trim().min(1, 'team must not be empty').max(200, 'team must be at most 200 characters').optional(),
  project: z.string({ error: 'project must be a project name, given once' }).trim().min(1, 'project must not be empty').max(200, 'project must be at most 200 characters').optional(),
  since: dateBound('since')
    .transform((b) => b.at)
    .optional(),
  },
  // A misspelt filter must not widen the answer to every team or project.
  { error: (i) => (i.code === 'unrecognized_keys' ? `GET /v1/usage takes only team, project and since; unknown: ${i.keys.join(', ')}` : undefined) },
);
export type UsageQuery = z.infer<typeof UsageQuery>;

/** Parses query parameters; a bad value is a 400 naming the parameter and what it accepts. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  throw ApiError.badRequest('invalid_query', issues.map((i) => i.message).join('; '), { issues });
}
