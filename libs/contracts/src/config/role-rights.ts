import type { ApiTokenRole } from './api-token-entry';

/**
 * What each API_TOKENS role may do (issue 26), asked here by the api's doors, its approval check
 * and the workbench's buttons alike, so no caller compares role names of its own. `open` is an
 * API without tokens, whose every caller has every right.
 */
type Role = ApiTokenRole | 'open';

/** POST, PUT, PATCH and DELETE: every role but read. */
export const roleMayWrite = (role: Role): boolean => role !== 'read';

/** Approving or refusing at a gate. */
export const roleMayApprove = (role: Role): boolean => role === 'approve' || role === 'admin' || role === 'open';

/** Bull Board, whose pages retry, promote and remove any team's jobs. */
export const roleMayOpenBoard = (role: Role): boolean => role === 'ops' || role === 'admin' || role === 'open';

/** Rows of every team, not only the token's own. */
export const roleSeesEveryTeam = (role: Role): boolean => role === 'admin' || role === 'open';

/** The roles that may open Bull Board, for the 403 that names them. */
export const BOARD_ROLES = ['ops', 'admin'] as const;
