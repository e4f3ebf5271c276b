/** The workbench's pages, from the location's path (the api answers index.html for each). */
export type Route =
  | { page: 'runs' }
  | { page: 'new' }
  | { page: 'run'; runId: string }
  | { page: 'call'; runId: string; callId: string }
  | { page: 'not-found'; path: string };

export function routeOf(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean).map((p) => decodeURIComponent(p));
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'runs')) return { page: 'runs' };
  if (parts.length === 1 && parts[0] === 'new') return { page: 'new' };
  if (parts[0] === 'runs' && parts.length === 2) return { page: 'run', runId: parts[1] };
  if (parts[0] === 'runs' && parts.length === 4 && parts[2] === 'calls') return { page: 'call', runId: parts[1], callId: parts[3] };
  return { page: 'not-found', path: pathname };
}

export const runPath = (runId: string) => `/runs/${encodeURIComponent(runId)}`;
export const callPath = (runId: string, callId: string) => `${runPath(runId)}/calls/${encodeURIComponent(callId)}`;
