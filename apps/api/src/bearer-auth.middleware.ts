import type { NextFunction, Request, Response } from 'express';
import { BOARD_ROLES, roleMayOpenBoard, roleMayWrite } from '@roundtable/contracts';
import { ApiError } from './api-error';
import { type ApiToken, DEFAULT_TEAM, type TokenBook } from './api-tokens';
import { BULL_BOARD_PATH } from './bull-board.modules';
import { routeForm, underMount } from './route-paths';

/** Kubelet and load balancers probe these without credentials (matched as the router matches: `/HEALTHZ/` too). */
export const PUBLIC_PATHS = new Set(['/healthz', '/readyz']);

/** Pages a person opens in a browser, which cannot send a bearer header: they also accept Basic (any user, the token as password). */
const BROWSER_PATHS = [BULL_BOARD_PATH, '/docs'];

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Who made the request, for the rate limiter and the log; `anonymous` when the API runs open. */
export interface Principal {
  name: string;
  role: ApiToken['role'];
  /** The token's team (issue 26); an open API's caller is in the team default. */
  team: string;
  /** No API_TOKENS: every request passes as `anonymous` with every right (the admin role: every team, Bull Board). */
  open?: true;
}

export function principalOf(res: Response): Principal | undefined {
  return res.locals.principal as Principal | undefined;
}

/** A request that changes something: what the write rate limit counts. */
export function isWrite(req: Request): boolean {
  return !READ_METHODS.has(req.method);
}

/** Writes need a write token; so does all of Bull Board, whose pages retry, promote and remove jobs. */
export function needsWrite(req: Request): boolean {
  return isWrite(req) || isBoardPath(req.path);
}

/** Bull Board shows and moves every team's jobs, so it is for ops and admin only (issue 26), reads included. */
const isBoardPath = (path: string) => underMount(path, BULL_BOARD_PATH);

const isBrowserPath = (path: string) => BROWSER_PATHS.some((p) => underMount(path, p));

/** Public in the router's own form only: a decoded or merged variant is no route, so it gets no pass. */
const isPublicPath = (path: string) => PUBLIC_PATHS.has(routeForm(path));

function presentedToken(header: string | undefined): string | null {
  if (!header) return null;
  const [scheme, value] = [header.slice(0, header.indexOf(' ')), header.slice(header.indexOf(' ') + 1).trim()];
  if (/^bearer$/i.test(scheme)) return value || null;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) || null : null;
  }
  return null;
}

/**
 * The door of every route but /healthz and /readyz, Bull Board and /docs included: mounted before the
 * body parsers, so an anonymous client cannot make the API read a body. 401 without a token or with
 * one API_TOKENS does not hold (WWW-Authenticate: Bearer), 403 for a read token on a write. With no
 * tokens configured the API is open and every request passes as `anonymous` with every right.
 */
export function bearerAuth(book: TokenBook) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (isPublicPath(req.path)) return next();
    if (book.open) {
      res.locals.principal = { name: 'anonymous', role: 'admin', team: DEFAULT_TEAM, open: true } satisfies Principal;
      return next();
    }
    const presented = presentedToken(req.headers.authorization);
    const token = presented === null ? null : book.find(presented);
    if (!token) {
      const challenge = presented === null ? 'Bearer realm="roundtable"' : 'Bearer realm="roundtable", error="invalid_token"';
      res.setHeader('WWW-Authenticate', isBrowserPath(req.path) ? [challenge, 'Basic realm="roundtable", charset="UTF-8"'] : challenge);
      return next(
        new ApiError(401, {
          error: presented === null ? 'unauthorized' : 'invalid_token',
          message:
            presented === null
              ? 'this route needs a token: send Authorization: Bearer <token> (tokens come from the API_TOKENS of this deployment)'
              : 'the token is not one this API accepts',
        }),
      );
    }
    if (needsWrite(req) && !roleMayWrite(token.role)) {
      return next(new ApiError(403, { error: 'forbidden', message: `token ${token.name} is read-only; ${req.method} ${req.path} needs a write token` }));
    }
    if (isBoardPath(req.path) && !roleMayOpenBoard(token.role)) {
      return next(
        new ApiError(403, {
          error: 'forbidden',
          message: `token ${token.name} has the ${token.role} role; Bull Board (${BULL_BOARD_PATH}) needs the ${BOARD_ROLES.join(' or ')} role (API_TOKENS name:token:ops:team)`,
        }),
      );
    }
    res.locals.principal = { name: token.name, role: token.role, team: token.team ?? DEFAULT_TEAM } satisfies Principal;
    next();
  };
}
