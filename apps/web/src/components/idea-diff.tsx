import { useState } from 'react';
import type { IdeaDiff } from '../lib/api-types';
import { ideaDiffRows } from '../lib/ideas-diff';
import { defaultDiffPair } from '../lib/ideas-versions';
import { useApp } from './app-context';
import { Section } from './section';
import { errorText, useAsync } from './use-async';

/** Two versions field by field (GET /v1/ideas/:id/diff?from&to): by default the one before the shown version against it, the changed fields only. */
export function IdeaDiffSection({ ideaId, versions, shown, generation }: { ideaId: string; versions: number[]; shown: number; generation: number }) {
  const { api } = useApp();
  const [pair, setPair] = useState(() => defaultDiffPair(shown));
  // Only what changed unless asked: on a phone every unchanged field twice is a long scroll.
  const [all, setAll] = useState(false);
  const diff = useAsync(() => api.ideaDiff(ideaId, pair.from, pair.to), `${ideaId}|${pair.from}|${pair.to}|${generation}`);
  const picker = (which: 'from' | 'to', label: string) => (
    <div className="field">
      <label htmlFor={`idea-diff-${which}`}>{label}</label>
      <select id={`idea-diff-${which}`} value={pair[which]} onChange={(e) => setPair({ ...pair, [which]: Number(e.target.value) })}>
        {versions.map((n) => (
          <option key={n} value={n}>
            Version {n}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <Section title="Diff">
      <div className="filters">
        {picker('from', 'From')}
        {picker('to', 'To')}
        <div className="field checks-row">
          <label className="check" htmlFor="idea-diff-all">
            <input id="idea-diff-all" type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
            Show unchanged fields
          </label>
        </div>
      </div>
      {diff.state === 'loading' && <p className="muted">Loading the diff…</p>}
      {diff.state === 'error' && (
        <p role="alert" className="error">
          Could not load the diff: {errorText(diff.error)}
        </p>
      )}
      {diff.state === 'ok' && <DiffTable diff={diff.value} all={all} />}
    </Section>
  );
}

function DiffTable({ diff, all }: { diff: IdeaDiff; all: boolean }) {
  const changed = ideaDiffRows(diff, true);
  const rows = ideaDiffRows(diff, !all);
  return (
    <>
      <p className="muted" data-testid="diff-summary">
        {changed.length === 0 ? `Versions ${diff.from} and ${diff.to} are the same.` : `Changed from version ${diff.from} to ${diff.to}: ${changed.map((r) => r.label).join(', ')}.`}
      </p>
      {rows.length > 0 && (
        <table className="stack idea-diff">
          <caption className="visually-hidden">
            Version {diff.from} against version {diff.to}, field by field
          </caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Version {diff.from}</th>
              <th scope="col">Version {diff.to}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.field} data-testid="diff-row" data-field={r.field} data-changed={r.changed} className={r.changed ? 'changed' : undefined}>
                <td data-label="Field">
                  {r.label} {r.changed ? <span className="badge warn">changed</span> : <span className="muted small">same</span>}
                </td>
                <td data-label={`Version ${diff.from}`} className={`prose${r.changed ? ' del-cell' : ''}`}>
                  {r.from}
                </td>
                <td data-label={`Version ${diff.to}`} className={`prose${r.changed ? ' add-cell' : ''}`}>
                  {r.to}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
