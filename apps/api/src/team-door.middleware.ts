import type { NextFunction, Request, Response } from 'express';
import type { DataSource } from 'typeorm';
import { runStatement } from '@roundtable/persistence';
import { principalOf } from './bearer-auth.middleware';
import { TEAM_OWNED, type TeamOwnedKind } from './team-owned';
import { mayReach, scopeOf } from './team-scope';

/** A path that names one team-owned row: its kind and its id, as the router's `:id` would read them. */
export interface OwnedPath {
  kind: TeamOwnedKind;
  id: string;
}

const KINDS = Object.entries(TEAM_OWNED) as [TeamOwnedKind, (typeof TEAM_OWNED)[TeamOwnedKind]][];

/**
 * Which row a path names, if any: `<mount>/<id>` and everything under it, for every mount in
 * TEAM_OWNED, whatever comes after the id (a route added under a run tomorrow is behind the door
 * the day it is written). Matched as the router matches (route-paths.ts): the mount in any ASCII
 * case, one trailing slash or none, nothing decoded or merged before matching; the id, like
 * Express's `:id`, is the next segment percent-decoded and keeps its case. An id that does not
 * decode names no row the router would reach, and is answered as a missing one.
 */
export function ownedPathOf(path: string): OwnedPath | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  for (const [kind, { mount }] of KINDS) {
    if (!trimmed.toLowerCase().startsWith(`${mount}/`)) continue;
    const raw = trimmed.slice(mount.length + 1).split('/')[0];
    if (!raw) return null;
    try {
      return { kind, id: decodeURIComponent(raw) };
    } catch {
      return { kind, id: raw };
    }
  }
  return null;
}

/**
 * The team door (issue 26), mounted right after the bearer door and before the body parsers: a
 * request on one run, idea, experiment or eval reaches its route only when the row is the
 * token's team's, or the token is admin (an open API's caller is). Otherwise — another team's
 * row, or no row at all — it answers the route's own "no such row" 404, the same status and
 * body either way, so a token learns nothing about ids it does not own (not 403: no oracle).
 * One primary-key read per such request. Lists are filtered by the services (team-scope.ts).
 */
export function teamDoor(ds: DataSource) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const owned = ownedPathOf(req.path);
    if (!owned) return next();
    const { teamOf, notFound } = TEAM_OWNED[owned.kind];
    runStatement(ds, teamOf, owned.id).then(
      ({ rows: [row] }) => next(row && mayReach(scopeOf(principalOf(res)), row.team) ? undefined : notFound(owned.id)),
      (e: unknown) => next(e),
    );
  };
}
