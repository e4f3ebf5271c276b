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

/** Acts (cancel, resume, appeal) are shown only to a write token or an open api: absent, not disabled, otherwise. */
export const canAct = (me: Me | null): boolean => me !== null && (me.role === 'write' || me.role === 'approve' || me.role === 'open');
/** Whether the token may approve or refuse at a gate (the approve role, or an open API). */
export const canApprove = (me: Me | null): boolean => me !== null && (me.role === 'approve' || me.role === 'open');
