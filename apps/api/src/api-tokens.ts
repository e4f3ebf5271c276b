import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { API_TOKEN_ROLES, type ApiTokenRole, DEFAULT_TEAM, splitApiTokenEntry } from '@roundtable/contracts';

/** read < write < approve within a team; ops writes and opens Bull Board; admin may do all, on every team (contracts role-rights.ts). */
export type TokenRole = ApiTokenRole;
export const TOKEN_ROLES: readonly TokenRole[] = API_TOKEN_ROLES;

export interface ApiToken {
  /** Who holds it: in logs and rate-limit keys, never the token itself. */
  name: string;
  token: string;
  role: TokenRole;
  /** The team it belongs to (issue 26): `name:token:role:team`; the old form's, or none, is DEFAULT_TEAM. */
  team?: string;
}

export { DEFAULT_TEAM };

const MIN_TOKEN_LENGTH = 16;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const FORMAT =
  `API_TOKENS is a comma list of name:token:role[:team] with role ${API_TOKEN_ROLES.join(', ')}, e.g. ci:3f9c…e1:write:payments,dashboard:77ab…02:read:payments,lead:9d0e…4a:approve,sre:51c2…9b:ops:platform,root:a0f4…7d:admin (no team: the team default)`;

/**
 * API_TOKENS: `name:token:role[:team],…`. Messages name the entry by its position and name, never
 * its token. Unset or empty: no tokens, and the API runs open (main.ts warns loudly).
 */
export const ApiTokensEnv = z
  .string()
  .optional()
  .transform((raw, ctx): ApiToken[] => {
    const entries = (raw ?? '').split(',').map((e) => e.trim()).filter(Boolean);
    const tokens: ApiToken[] = [];
    entries.forEach((entry, i) => {
      const fields = splitApiTokenEntry(entry);
      const name = fields?.name ?? entry.slice(0, Math.max(0, entry.indexOf(':')));
      const at = `API_TOKENS entry ${i + 1}${NAME.test(name) ? ` (${name})` : ''}`;
      if (!fields) return ctx.addIssue({ code: 'custom', message: `${at} is not name:token:role. ${FORMAT}` });
      const { token, role, team } = fields;
      if (!NAME.test(name)) ctx.addIssue({ code: 'custom', message: `${at}: the name may hold letters, digits, _ . and - (1 to 64 of them)` });
      else if (!(TOKEN_ROLES as readonly string[]).includes(role)) ctx.addIssue({ code: 'custom', message: `${at}: the role must be one of ${TOKEN_ROLES.join(', ')}, not "${role}"` });
      else if (!team || !NAME.test(team)) ctx.addIssue({ code: 'custom', message: `${at}: the team may hold letters, digits, _ . and - (1 to 64 of them)` });
      else if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
        ctx.addIssue({ code: 'custom', message: `${at}: the token must be at least ${MIN_TOKEN_LENGTH} characters without spaces (e.g. openssl rand -hex 24)` });
      } else if (tokens.some((t) => t.name === name)) ctx.addIssue({ code: 'custom', message: `${at}: the name ${name} is given twice` });
      else if (tokens.some((t) => t.token === token)) ctx.addIssue({ code: 'custom', message: `${at}: the same token is given to ${tokens.find((t) => t.token === token)!.name} already` });
      else tokens.push({ name, token, role: role as TokenRole, team });
    });
    return tokens;
  });

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Looks a presented token up in constant time per entry (digests of equal length, timingSafeEqual). */
export class TokenBook {
  private readonly entries: { digest: Buffer; token: ApiToken }[];

  constructor(tokens: readonly ApiToken[]) {
    this.entries = tokens.map((t) => ({ digest: digest(t.token), token: t }));
  }

  /** No tokens configured: every request is let in. */
  get open(): boolean {
    return this.entries.length === 0;
  }

  find(presented: string): ApiToken | null {
    const d = digest(presented);
    let found: ApiToken | null = null;
    for (const e of this.entries) if (timingSafeEqual(e.digest, d)) found = e.token;
    return found;
  }
}
