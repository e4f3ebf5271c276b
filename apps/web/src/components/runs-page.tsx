import { useCallback, useEffect, useState } from 'react';
// The contracts' RunStatus values, through run-view's zod-free copy (the browser loads no zod).
import { RUN_STATUSES } from '@roundtable/run-view';
import type { RunListItem } from '../lib/api-types';
import { comparePair } from '../lib/compare';
import { fmtAge, fmtCost, fmtInt } from '../lib/format';
import { comparePath, EMPTY_RUNS_FILTER, RUNS_MAX_LIMIT, RUNS_PAGE_SIZE, type RunsFilter, routeOf, runPath, runsFilterOf, runsSearchOf, withRunsFilter } from '../lib/route';
import { useApp } from './app-context';
import { Link } from './link';
import { errorText } from './use-async';
import { WORKFLOW_NAMES } from '../workflows';

const POLL_MS = 2000;
const NUMERIC = new Set(['Calls', 'Tokens', 'Cost']);

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

const SEARCH_DEBOUNCE_MS = 300;

/** Dispatched on window by the app's navigate (pushState fires no popstate): the runs page rereads its URL. */
export const NAVIGATED = 'roundtable:navigated';

/** Keeps the page's filter in its URL without a history entry per keystroke. */
function writeFilterToUrl(f: RunsFilter) {
  // Never another page's URL: a pending keystroke may land as a link is followed.
  if (routeOf(location.pathname).page !== 'runs') return;
  const next = location.pathname + runsSearchOf(f);
  if (next !== location.pathname + location.search) history.replaceState(history.state, '', next);
}

/**
 * The runs, newest first, refreshed every 2 s while the page is open (the api's list is a cheap
 * grouped query). Search, dates, status and workflow live in the URL (a reload or a shared link
 * shows the same list); "Load more" asks for the next page by the api's cursor, and the count
 * shown goes into the URL too, so the refresh keeps every page loaded.
 */
export function RunsPage() {
  const { api, navigate } = useApp();
  // The runs ticked for Compare, by id, with when each was created (A is the older of the two).
  const [picked, setPicked] = useState<ReadonlyMap<string, string | null>>(() => new Map());
  const [filter, setFilterState] = useState<RunsFilter>(() => runsFilterOf(location.search));
  const [query, setQuery] = useState(filter.q);
  const [runs, setRuns] = useState<RunListItem[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const { status, workflow, from, to, limit } = filter;

  const setFilter = useCallback((f: RunsFilter) => {
    writeFilterToUrl(f);
    setFilterState(f);
  }, []);
  const change = (c: Partial<Omit<RunsFilter, 'limit'>>) => setFilter(withRunsFilter(filter, c));

  // Back and forward between lists, or a link to /runs: the URL is the state.
  useEffect(() => {
    const onPop = () => {
      if (routeOf(location.pathname).page !== 'runs') return;
      const f = runsFilterOf(location.search);
      setFilterState(f);
      setQuery(f.q);
    };
    window.addEventListener('popstate', onPop);
    window.addEventListener(NAVIGATED, onPop);
    return () => {
      window.removeEventListener('popstate', onPop);
      window.removeEventListener(NAVIGATED, onPop);
    };
  }, []);

  // The search box asks once typing pauses; the URL follows each keystroke.
  useEffect(() => {
    if (query === filter.q) return;
    writeFilterToUrl(withRunsFilter(filter, { q: query }));
    const t = setTimeout(() => setFilterState((f) => withRunsFilter(f, { q: query })), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [query, filter]);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const page = await api.listRunsPage({ q: filter.q, status, workflow, from, to, limit: Math.min(limit, RUNS_MAX_LIMIT) });
        if (!live) return;
        setRuns(page.runs);
        setNextCursor(page.nextCursor);
        setError(null);
      } catch (e) {
        if (live) setError(errorText(e as Error));
      }
      if (!live) return;
      setNow(Date.now());
      timer = setTimeout(tick, document.hidden ? POLL_MS * 5 : POLL_MS);
    };
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, filter.q, status, workflow, from, to, limit]);

  const loadMore = async () => {
    if (!nextCursor || limit >= RUNS_MAX_LIMIT) return;
    setLoadingMore(true);
    try {
      const page = await api.listRunsPage({ q: filter.q, status, workflow, from, to, cursor: nextCursor, limit: RUNS_PAGE_SIZE });
      setRuns((prev) => {
        const seen = new Set((prev ?? []).map((r) => r.id));
        return [...(prev ?? []), ...page.runs.filter((r) => !seen.has(r.id))];
      });
      setNextCursor(page.nextCursor);
      setFilter({ ...filter, limit: Math.min(RUNS_MAX_LIMIT, limit + RUNS_PAGE_SIZE) });
    } catch (e) {
      setError(errorText(e as Error));
    } finally {
      setLoadingMore(false);
    }
  };

  const filtered = Boolean(filter.q || query || status || workflow || from || to);

  const togglePick = (r: RunListItem, on: boolean) =>
    setPicked((prev) => {
      const next = new Map(prev);
      if (on) next.set(r.id, r.created_at);
      else next.delete(r.id);
      return next;
    });
  const pair = comparePair(picked);
  const compareTarget = pair ? comparePath(pair.a, pair.b) : null;

  return (
    <>
      <div className="page-head">
        <h1>Runs</h1>
        <Link to="/new" className="button">
          New run
        </Link>
      </div>
      <form className="filters" role="search" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="filter-q">Search</label>
          <input
            id="filter-q"
            type="search"
            value={query}
            placeholder="project, objective or run id"
            aria-describedby="filter-q-help"
            onChange={(e) => setQuery(e.target.value)}
          />
          <span id="filter-q-help" className="visually-hidden">
            Searches the project name, the objective and the run id, ignoring case
          </span>
        </div>
        <div className="field">
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" value={status} onChange={(e) => change({ status: e.target.value })}>
            <option value="">any</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-workflow">Workflow</label>
          <select id="filter-workflow" value={workflow} onChange={(e) => change({ workflow: e.target.value })}>
            <option value="">any</option>
            {WORKFLOW_NAMES.map((w) => (
              <option key={w} value={w}>
                {w}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-from">Created from</label>
          <input id="filter-from" type="date" value={from} max={to || undefined} onChange={(e) => change({ from: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="filter-to">Created to</label>
          <input id="filter-to" type="date" value={to} min={from || undefined} onChange={(e) => change({ to: e.target.value })} />
        </div>
        {filtered && (
          <div className="field">
            <button
              type="button"
              onClick={() => {
                setQuery('');
                setFilter(EMPTY_RUNS_FILTER);
              }}
            >
              Clear filters
            </button>
          </div>
        )}
      </form>
      {error && (
        <p role="alert" className="error">
          Could not load the runs: {error}
        </p>
      )}
      <div className="compare-bar">
        <button type="button" className="secondary" disabled={compareTarget === null} aria-describedby="compare-hint" onClick={() => compareTarget && navigate(compareTarget)}>
          Compare selected
        </button>
        <span id="compare-hint" className="muted" aria-live="polite">
          {picked.size === 2 ? 'Two runs picked: compare them side by side.' : picked.size > 2 ? `${picked.size} runs picked: pick exactly two to compare.` : `Tick Compare on two runs (${picked.size} picked).`}
        </span>
        {picked.size > 0 && (
          <button type="button" className="link" onClick={() => setPicked(new Map())}>
            Clear picks
          </button>
        )}
      </div>
      {runs === null ? (
        !error && <p className="muted">Loading runs…</p>
      ) : runs.length === 0 ? (
        <p className="muted">No runs{filtered ? ' match these filters' : ' yet'}. <Link to="/new">Start one</Link>.</p>
      ) : (
        <table className="stack">
          <caption className="visually-hidden">Runs, newest first</caption>
          <thead>
            <tr>
              {['Run', 'Project', 'Status', 'Workflow', 'Verdict', 'Calls', 'Tokens', 'Cost', 'Age'].map((h) => (
                <th key={h} scope="col" className={NUMERIC.has(h) ? 'num' : undefined}>
                  {h}
                </th>
              ))}
              <th scope="col">Compare</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id}>
                <td data-label="Run">
                  <Link to={runPath(r.id)} className="mono">
                    {r.id}
                  </Link>
                </td>
                <td data-label="Project">{r.project}</td>
                <td data-label="Status">
                  <StatusBadge status={r.status} />
                </td>
                <td data-label="Workflow">{r.workflow}</td>
                <td data-label="Verdict">{r.verdict ?? '—'}</td>
                <td data-label="Calls" className="num">
                  {fmtInt(r.usage?.calls)}
                </td>
                <td data-label="Tokens" className="num">
                  {fmtInt(r.usage?.tokens)}
                </td>
                <td data-label="Cost" className="num">
                  {fmtCost(r.usage?.cost_usd)}
                </td>
                <td data-label="Age">
                  <time dateTime={r.created_at ?? undefined} title={r.created_at ?? undefined}>
                    {fmtAge(r.created_at, now)}
                  </time>
                </td>
                <td data-label="Compare" className="pick">
                  <input type="checkbox" aria-label={`Compare ${r.id}`} checked={picked.has(r.id)} onChange={(e) => togglePick(r, e.target.checked)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {runs !== null && runs.length > 0 && nextCursor && (
        <div className="load-more">
          {limit < RUNS_MAX_LIMIT ? (
            <button type="button" onClick={() => void loadMore()} disabled={loadingMore} aria-busy={loadingMore}>
              {loadingMore ? 'Loading…' : `Load ${RUNS_PAGE_SIZE} more`}
            </button>
          ) : (
            <p className="muted">Showing the newest {RUNS_MAX_LIMIT}: narrow the search or the dates to see older runs.</p>
          )}
        </div>
      )}
    </>
  );
}
