import type { ApiTokenRole } from './api-token-entry';

/**
 * What each API_TOKENS role may do (issue 26), asked here by the api's doors and its approval
 * check alike, so no caller compares role names of its own. An API without tokens gives its
 * every caller the admin role. (The workbench, which takes types only from contracts, keeps the
 * same table as a Record over the roles of /v1/me: apps/web/src/components/app-context.tsx.)
 */

/** POST, PUT, PATCH and DELETE: every role but read. */
export const roleMayWrite = (role: ApiTokenRole): boolean => role !== 'read';

/** Approving or refusing at a gate. */
export const roleMayApprove = (role: ApiTokenRole): boolean => role === 'approve' || role === 'admin';

/** Bull Board, whose pages retry, promote and remove any team's jobs. */
export const BOARD_ROLES: readonly ApiTokenRole[] = ['ops', 'admin'];
export const roleMayOpenBoard = (role: ApiTokenRole): boolean => BOARD_ROLES.includes(role);

/** Rows of every team, not only the token's own. */
export const roleSeesEveryTeam = (role: ApiTokenRole): boolean => role === 'admin';
