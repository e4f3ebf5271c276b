import { useEffect, useState } from 'react';
import { EVAL_POLL_MS, progressText } from '../lib/evals';
import { fmtAge } from '../lib/format';
import { evalPath } from '../lib/route';
import { useApp } from './app-context';
import { Link } from './link';
import { StatusBadge } from './runs-page';
import { errorText, useAsync } from './use-async';

/**
 * /evals (issue 25): every eval, newest first (GET /v1/evals), with its suite, configurations,
 * status and progress; asked again now and then while one is running. Evals are started from the
 * CLI, so the empty list says how.
 */
export function EvalsPage() {
  const { api } = useApp();
  const [generation, setGeneration] = useState(0);
  const list = useAsync(() => api.evals(), `evals|${generation}`);
  const running = list.state === 'ok' && list.value.some((e) => e.status === 'running');
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(() => setGeneration((g) => g + 1), EVAL_POLL_MS);
    return () => clearTimeout(t);
  }, [running, generation]);
  const now = Date.now();
  return (
    <>
      <div className="page-head">
        <h1>Evals</h1>
      </div>
      <p className="muted">
        An eval runs every task of a suite under every configuration — yours and the built-in baselines — as ordinary runs with the same budget per task, and scores each.
      </p>
      {list.state === 'loading' && <p className="muted">Loading evals…</p>}
      {list.state === 'error' && (
        <p role="alert" className="error">
          Could not load the evals: {errorText(list.error)}
        </p>
      )}
      {list.state === 'ok' &&
        (list.value.length === 0 ? (
          <div className="card" data-testid="evals-empty">
            <p>No evals yet.</p>
            <p>
              Start one from the command line, naming a suite under <code>evals/</code> and your configurations:
            </p>
            <pre className="code wrap">roundtable eval coding --configs team.yaml</pre>
          </div>
        ) : (
          <table className="stack evals-table">
            <caption className="visually-hidden">Evals, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Suite</th>
                <th scope="col">Configurations</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.value.map((e) => (
                <tr key={e.id} data-testid="eval-row" data-eval={e.id}>
                  <td data-label="Suite">
                    <Link to={evalPath(e.id)}>{e.suite}</Link> <span className="muted small mono">{e.id}</span>
                  </td>
                  <td data-label="Configurations">{e.configs.join(', ')}</td>
                  <td data-label="Status">
                    <StatusBadge status={e.status} />{' '}
                    <span data-testid="eval-row-progress">{progressText(e.progress)}</span>
                    <span className="visually-hidden"> cells done</span>
                  </td>
                  <td data-label="Created">
                    <time dateTime={e.created_at} title={e.created_at}>
                      {fmtAge(e.created_at, now)}
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
