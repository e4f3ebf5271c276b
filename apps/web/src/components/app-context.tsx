import { createContext, useContext } from 'react';
import { roleMayApprove, roleMayWrite } from '@roundtable/contracts';
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

/** Acts (cancel, resume, appeal) are shown only to a token that may write (every role but read) or an open api: absent, not disabled, otherwise. */
export const canAct = (me: Me | null): boolean => me !== null && roleMayWrite(me.role);
/** Whether the token may approve or refuse at a gate (approve or admin, or an open API). */
export const canApprove = (me: Me | null): boolean => me !== null && roleMayApprove(me.role);
