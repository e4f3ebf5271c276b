/**
 * The roles a token in API_TOKENS may have (issue 26): read < write < approve within the token's
 * team; ops writes within its team and also opens Bull Board; admin has every right approve has,
 * opens Bull Board, and sees and acts on every team's rows. What each may do is role-rights.ts.
 */
export const API_TOKEN_ROLES = ['read', 'write', 'approve', 'ops', 'admin'] as const;
export type ApiTokenRole = (typeof API_TOKEN_ROLES)[number];

/** The team of a token given in the old form (`name:token:role`), and of an open API's caller (issue 26). */
export const DEFAULT_TEAM = 'default';

/**
 * One API_TOKENS entry's fields, unchecked: `name:token:role` (the team `default`) or
 * `name:token:role:team`. The last field is the role when it is one (the old form), else the
 * last two are the role and the team; the token is what lies between the first colon and the
 * role's, so it may hold colons itself. Null when the entry has fewer than two colons. Read by
 * the api (which checks each field) and by the demo script's token choice, alike.
 */
export function splitApiTokenEntry(entry: string): { name: string; token: string; role: string; team: string } | null {
  const first = entry.indexOf(':');
  const last = entry.lastIndexOf(':');
  if (first <= 0 || last <= first) return null;
  const name = entry.slice(0, first);
  const tail = entry.slice(last + 1);
  const roleAt = entry.lastIndexOf(':', last - 1);
  if ((API_TOKEN_ROLES as readonly string[]).includes(tail) || roleAt <= first) return { name, token: entry.slice(first + 1, last), role: tail, team: DEFAULT_TEAM };
  return { name, token: entry.slice(first + 1, roleAt), role: entry.slice(roleAt + 1, last), team: tail };
}
