import { createContext, useContext } from 'react';
import type { ApiClient } from '../lib/api-client';
import type { Me } from '../lib/api-types';

export interface AppContextValue {
  api: ApiClient;
  /** Who the token is; null while /v1/me is being asked. */
  me: Me | null;
  /** keepFocus: a move within the page (a run page's tab): no scroll to the top, focus stays where it is. */
  navigate: (path: string, opts?: { keepFocus?: boolean }) => void;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const ctx = useContext(AppContext);
  if (!ctx) throw new Error('useApp outside <App>');
  return ctx;
}

/**
 * What each role may do in the page, as the api's role-rights (libs/contracts role-rights.ts)
 * decide it; the bundle takes types only from contracts, so the table is here, and being a
 * Record over every role of /v1/me, a role added to the contracts fails to compile until it is
 * given its row.
 */
const RIGHTS: Record<Me['role'], { act: boolean; approve: boolean }> = {
  read: { act: false, approve: false },
  write: { act: true, approve: false },
  ops: { act: true, approve: false },
  approve: { act: true, approve: true },
  admin: { act: true, approve: true },
  open: { act: true, approve: true },
};

/** Acts (cancel, resume, appeal) are shown only to a token that may write (every role but read) or an open api: absent, not disabled, otherwise. */
export const canAct = (me: Me | null): boolean => me !== null && RIGHTS[me.role].act;
/** Whether the token may approve or refuse at a gate (approve or admin, or an open API). */
export const canApprove = (me: Me | null): boolean => me !== null && RIGHTS[me.role].approve;
