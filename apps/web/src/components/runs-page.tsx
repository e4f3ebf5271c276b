import { useEffect, useState } from 'react';
// The contracts' RunStatus values, through run-view's zod-free copy (the browser loads no zod).
import { RUN_STATUSES } from '@roundtable/run-view';
import type { RunListItem } from '../lib/api-types';
import { fmtAge, fmtCost, fmtInt } from '../lib/format';
import { runPath } from '../lib/route';
import { useApp } from './app-context';
import { Link } from './link';
import { errorText } from './use-async';
import { WORKFLOW_NAMES } from '../workflows';

const POLL_MS = 2000;
const NUMERIC = new Set(['Calls', 'Tokens', 'Cost']);

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

/** The runs, newest first, refreshed every 2 s while the page is open (the api's list is a cheap grouped query). */
export function RunsPage() {
  const { api } = useApp();
  const [status, setStatus] = useState('');
  const [workflow, setWorkflow] = useState('');
  const [runs, setRuns] = useState<RunListItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const list = await api.listRuns({ status, workflow });
        if (!live) return;
        setRuns(list);
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
  }, [api, status, workflow]);

  return (
    <>
      <div className="page-head">
        <h1>Runs</h1>
        <Link to="/new" className="button">
          New run
        </Link>
      </div>
      <div className="filters" role="group" aria-label="Filters">
        <div className="field">
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" value={status} onChange={(e) => setStatus(e.target.value)}>
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
          <select id="filter-workflow" value={workflow} onChange={(e) => setWorkflow(e.target.value)}>
            <option value="">any</option>
            {WORKFLOW_NAMES.map((w) => (
              <option key={w} value={w}>
                {w}
              </option>
            ))}
          </select>
        </div>
      </div>
      {error && (
        <p role="alert" className="error">
          Could not load the runs: {error}
        </p>
      )}
      {runs === null ? (
        !error && <p className="muted">Loading runs…</p>
      ) : runs.length === 0 ? (
        <p className="muted">No runs{status || workflow ? ' match these filters' : ' yet'}. <Link to="/new">Start one</Link>.</p>
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
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
