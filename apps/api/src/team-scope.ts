import type { Response } from 'express';
import { DEFAULT_TEAM, roleSeesEveryTeam } from '@roundtable/contracts';
import { type Principal, principalOf } from './bearer-auth.middleware';

/**
 * Teams (issue 26): who a new row is written for, and whose rows a caller may see. Every run,
 * idea, experiment and eval row carries the team of the token that made it; the team door
 * (team-door.middleware.ts) keeps a token to its own team's rows by id, the lists filter by
 * `sees`, and a service checks an id named in a body (a panel run, an idea_ref) with `mayReach`.
 */

/** The one team whose rows a caller may see, or null for every team (admin, an open API). */
export type TeamScope = string | null;

/** Who makes a request: the token's name (submitted_by, created_by), the team its new rows belong to, and the rows it may see. */
export interface Submitter {
  name: string;
  team: string;
  sees: TeamScope;
}

/** No principal is no reader: it sees the team default, never everything. */
export function scopeOf(p: Principal | undefined): TeamScope {
  if (!p) return DEFAULT_TEAM;
  return roleSeesEveryTeam(p.role) ? null : p.team;
}

/** The request's submitter; an open API's caller is `anonymous` in the team default and sees every team. */
export function submitterOf(res: Response): Submitter {
  const p = principalOf(res);
  return { name: p?.name ?? 'anonymous', team: p?.team ?? DEFAULT_TEAM, sees: scopeOf(p) };
}

/** Whether a row owned by `team` is within the scope. */
export const mayReach = (sees: TeamScope, team: string): boolean => sees === null || sees === team;
