/**
 * The run page's tabs, each at its own path: /runs/<id> is the overview, /runs/<id>/<tab> the
 * others. Which of them a run shows is its workflow's (a build has proposals and a diff, a panel
 * a debate); the route knows them all.
 */
export const RUN_TABS = ['overview', 'calls', 'proposals', 'debate', 'diff', 'experiment', 'report', 'events'] as const;
export type RunTab = (typeof RUN_TABS)[number];
const isRunTab = (s: string): s is RunTab => (RUN_TABS as readonly string[]).includes(s);

/** The workbench's pages, from the location's path (the api answers index.html for each). */
export type Route =
  | { page: 'runs' }
  | { page: 'new' }
  | { page: 'run'; runId: string; tab: RunTab }
  | { page: 'call'; runId: string; callId: string }
  /** Two runs side by side (`/compare?a=<id>&b=<id>`); '' for a run the query does not name. */
  | { page: 'compare'; a: string; b: string }
  /** The ideas (issue 23): the list with its New idea form, and one idea at a version (null: its latest). */
  | { page: 'ideas' }
  | { page: 'idea'; ideaId: string; version: number | null }
  /** The experiments (issue 24): the list, and one experiment. */
  | { page: 'experiments' }
  | { page: 'experiment'; experimentId: string }
  /** The evals (issue 25): the list, and one eval's results. */
  | { page: 'evals' }
  | { page: 'eval'; evalId: string }
  /** The bias audit across recorded runs (issue 25 §3); `project` from ?project=, '' for every project. */
  | { page: 'audit'; project: string }
  | { page: 'not-found'; path: string };

/** `search` is the location's query: /compare and /ideas/<id> read it (the runs list reads its own, runsFilterOf). */
export function routeOf(pathname: string, search = ''): Route {
  const parts = pathname.split('/').filter(Boolean).map((p) => decodeURIComponent(p));
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'runs')) return { page: 'runs' };
  if (parts.length === 1 && parts[0] === 'new') return { page: 'new' };
  if (parts.length === 1 && parts[0] === 'compare') {
    const q = new URLSearchParams(search);
    return { page: 'compare', a: (q.get('a') ?? '').trim(), b: (q.get('b') ?? '').trim() };
  }
  if (parts.length === 1 && parts[0] === 'ideas') return { page: 'ideas' };
  if (parts.length === 2 && parts[0] === 'ideas') return { page: 'idea', ideaId: parts[1], version: versionOf(new URLSearchParams(search).get('version')) };
  if (parts.length === 1 && parts[0] === 'experiments') return { page: 'experiments' };
  if (parts.length === 2 && parts[0] === 'experiments') return { page: 'experiment', experimentId: parts[1] };
  if (parts.length === 1 && parts[0] === 'evals') return { page: 'evals' };
  if (parts.length === 2 && parts[0] === 'evals') return { page: 'eval', evalId: parts[1] };
  if (parts.length === 1 && parts[0] === 'audit') return { page: 'audit', project: (new URLSearchParams(search).get('project') ?? '').trim() };
  if (parts[0] === 'runs' && parts.length === 2) return { page: 'run', runId: parts[1], tab: 'overview' };
  if (parts[0] === 'runs' && parts.length === 3 && isRunTab(parts[2]) && parts[2] !== 'overview') return { page: 'run', runId: parts[1], tab: parts[2] };
  if (parts[0] === 'runs' && parts.length === 4 && parts[2] === 'calls') return { page: 'call', runId: parts[1], callId: parts[3] };
  return { page: 'not-found', path: pathname };
}

/** `?version=N` as a version number; anything else (absent, 0, 2.5, x) is null: the idea's latest. */
function versionOf(raw: string | null): number | null {
  return raw !== null && /^[1-9][0-9]{0,8}$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

export const IDEAS_PATH = '/ideas';
/** An idea's page, at a version when one is named (null or absent: the latest). */
export const ideaPath = (ideaId: string, version: number | null = null) => `${IDEAS_PATH}/${encodeURIComponent(ideaId)}${version === null ? '' : `?version=${version}`}`;

export const EXPERIMENTS_PATH = '/experiments';
export const experimentPath = (experimentId: string) => `${EXPERIMENTS_PATH}/${encodeURIComponent(experimentId)}`;

export const EVALS_PATH = '/evals';
export const evalPath = (evalId: string) => `${EVALS_PATH}/${encodeURIComponent(evalId)}`;
export const AUDIT_PATH = '/audit';
/** The audit page, of one project when named. */
export const auditPath = (project = '') => (project.trim() ? `${AUDIT_PATH}?${new URLSearchParams({ project: project.trim() }).toString()}` : AUDIT_PATH);

export const runPath = (runId: string) => `/runs/${encodeURIComponent(runId)}`;
/** A tab of the run page: the overview is the run's own path. */
export const runTabPath = (runId: string, tab: RunTab) => (tab === 'overview' ? runPath(runId) : `${runPath(runId)}/${tab}`);
export const callPath = (runId: string, callId: string) => `${runPath(runId)}/calls/${encodeURIComponent(callId)}`;
/** Two runs side by side, a on the left (first) and b on the right; b '' leaves B to be picked on the page. */
export const comparePath = (a: string, b = '') => `/compare?${new URLSearchParams(b ? { a, b } : { a }).toString()}`;

/** The runs page's list, as its URL's query keeps it: a reload or a shared link shows the same list. */
export interface RunsFilter {
  /** Text searched for in the project's name, its objective and the run id. */
  q: string;
  status: string;
  workflow: string;
  /** YYYY-MM-DD (a date input's value), or ''. */
  from: string;
  to: string;
  /** How many runs are shown: a page, plus each "Load more". */
  limit: number;
}

export const RUNS_PAGE_SIZE = 50;
/** The api's most per request. */
export const RUNS_MAX_LIMIT = 500;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const EMPTY_RUNS_FILTER: RunsFilter = { q: '', status: '', workflow: '', from: '', to: '', limit: RUNS_PAGE_SIZE };

/**
 * The filter a query string holds (`?q=…&status=…&workflow=…&from=…&to=…&limit=…`). What is not
 * a value the controls can show is dropped: a date not YYYY-MM-DD, a limit not a whole number
 * of pages; status and workflow are left for the api to judge (it answers 400 naming them).
 */
export function runsFilterOf(search: string): RunsFilter {
  const p = new URLSearchParams(search);
  const day = (name: string) => {
    const v = p.get(name) ?? '';
    return DAY.test(v) ? v : '';
  };
  const rawLimit = Number(p.get('limit'));
  const limit = Number.isInteger(rawLimit) && rawLimit > RUNS_PAGE_SIZE ? Math.min(RUNS_MAX_LIMIT, Math.ceil(rawLimit / RUNS_PAGE_SIZE) * RUNS_PAGE_SIZE) : RUNS_PAGE_SIZE;
  return { q: p.get('q') ?? '', status: p.get('status') ?? '', workflow: p.get('workflow') ?? '', from: day('from'), to: day('to'), limit };
}

/** The query string for a filter ('' when it is the default), in a fixed order; runsFilterOf reads it back. */
export function runsSearchOf(f: RunsFilter): string {
  const p = new URLSearchParams();
  if (f.q.trim()) p.set('q', f.q);
  if (f.status) p.set('status', f.status);
  if (f.workflow) p.set('workflow', f.workflow);
  if (f.from) p.set('from', f.from);
  if (f.to) p.set('to', f.to);
  if (f.limit > RUNS_PAGE_SIZE) p.set('limit', String(f.limit));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The list's filter changed: back to one page. */
export const withRunsFilter = (f: RunsFilter, change: Partial<Omit<RunsFilter, 'limit'>>): RunsFilter => ({ ...f, ...change, limit: RUNS_PAGE_SIZE });
