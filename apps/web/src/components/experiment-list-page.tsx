import { useState } from 'react';
import { decisionClass } from '../lib/experiments';
import { fmtAge } from '../lib/format';
import { experimentPath, runPath } from '../lib/route';
import { useApp } from './app-context';
import { Link } from './link';
import { errorText, useAsync } from './use-async';

/** The experiments' statuses (contracts' ExperimentStatusName, restated: no zod in the browser). */
const STATUSES = ['draft', 'locked', 'decided', 'rejected'] as const;

/**
 * /experiments (issue 24): every experiment, newest first, with its status, the decision code made
 * and its latest run; filtered by project and status (GET /v1/experiments?project=&status=).
 */
export function ExperimentsPage() {
  const { api } = useApp();
  const [project, setProject] = useState('');
  const [status, setStatus] = useState('');
  const list = useAsync(() => api.experiments({ project, status }), `experiments|${project.trim()}|${status}`);
  const now = Date.now();
  return (
    <>
      <div className="page-head">
        <h1>Experiments</h1>
      </div>
      <p className="muted">
        An experiment is preregistered — hypothesis, method, and the criteria that will decide it — then hashed and locked before it runs. The decision is code&apos;s: PASS, KILL or INCONCLUSIVE from the locked criteria and the measured metrics.
      </p>
      <form className="filters" role="search" aria-label="Filter the experiments" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="experiments-project">Project</label>
          <input id="experiments-project" value={project} onChange={(e) => setProject(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="experiments-status">Status</label>
          <select id="experiments-status" value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </form>
      {list.state === 'loading' && <p className="muted">Loading experiments…</p>}
      {list.state === 'error' && (
        <p role="alert" className="error">
          Could not load the experiments: {errorText(list.error)}
        </p>
      )}
      {list.state === 'ok' &&
        (list.value.length === 0 ? (
          <p className="muted">No experiments{project.trim() || status ? ' match' : ' yet'}.</p>
        ) : (
          <table className="stack experiments-table">
            <caption className="visually-hidden">Experiments, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Project</th>
                <th scope="col">Status</th>
                <th scope="col">Decision</th>
                <th scope="col">Run</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.value.map((x) => (
                <tr key={x.id} data-testid="experiment-row" data-experiment={x.id}>
                  <td data-label="Title">
                    <Link to={experimentPath(x.id)}>{x.title || x.id}</Link> <span className="muted small mono">{x.id}</span>
                  </td>
                  <td data-label="Project">{x.project}</td>
                  <td data-label="Status">
                    <span className="badge">{x.status}</span>
                  </td>
                  <td data-label="Decision">{x.decision ? <span className={`badge ${decisionClass(x.decision)}`}>{x.decision}</span> : <span className="muted">—</span>}</td>
                  <td data-label="Run">
                    {x.run_id ? (
                      <Link to={runPath(x.run_id)} className="mono">
                        {x.run_id}
                      </Link>
                    ) : (
                      <span className="muted">none yet</span>
                    )}
                  </td>
                  <td data-label="Created">
                    <time dateTime={x.created_at} title={x.created_at}>
                      {fmtAge(x.created_at, now)}
                    </time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </>
  );
}
