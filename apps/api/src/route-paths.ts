/**
 * Paths as the router matches them, so a door and the route behind it agree on what a path is.
 * Express (router 2, path-to-regexp with the `i` flag, `strict: false`) matches a route whatever
 * the ASCII case of the path (`/ADMIN/QUEUES` is Bull Board) and with one trailing slash or none
 * (`/healthz/` is /healthz). It does not decode percent-escapes, resolve dot segments or merge
 * slashes before matching (checked against this Express: `/admin/%71ueues`, `/admin/./queues`
 * and `//admin/queues` are 404s). Node's HTTP parser refuses raw non-ASCII in a path, so
 * lowercasing ASCII is the router's whole folding.
 */

/** The form a route's regexp sees, minus its one optional trailing slash. */
export function routeForm(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/** Whether `path` is the route `exact` itself (a fixed route: /healthz). */
export function isRoute(path: string, exact: string): boolean {
  return routeForm(path) === exact;
}

function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Whether `path` reaches the mount at `prefix` (a subtree: Bull Board, /docs). Used to PROTECT a
 * subtree, so it errs wide: besides the router's own form it also tries the percent-decoded path
 * with repeated slashes merged, in case a layer below (a static file server, a proxy in front)
 * decodes or merges what the router did not. Refusing a read token on a path that would have
 * been a 404 costs nothing; letting one through to the board would.
 */
export function underMount(path: string, prefix: string): boolean {
  const forms = [routeForm(path), routeForm(decoded(path).replace(/\/{2,}/g, '/'))];
  return forms.some((p) => p === prefix || p.startsWith(`${prefix}/`));
}
