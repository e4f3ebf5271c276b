import { useState } from 'react';
import { ideaDiffRows } from '../lib/ideas-diff';
import { defaultDiffPair } from '../lib/ideas-versions';
import { useApp } from './app-context';
import { Section } from './section';
import { errorText, useAsync } from './use-async';

/** Two versions field by field (GET /v1/ideas/:id/diff?from&to): by default the one before the shown version against it. */
export function IdeaDiffSection({ ideaId, versions, shown, generation }: { ideaId: string; versions: number[]; shown: number; generation: number }) {
  const { api } = useApp();
  const [pair, setPair] = useState(() => defaultDiffPair(shown));
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
      </div>
      {diff.state === 'loading' && <p className="muted">Loading the diff…</p>}
      {diff.state === 'error' && (
        <p role="alert" className="error">
          Could not load the diff: {errorText(diff.error)}
        </p>
      )}
      {diff.state === 'ok' && (
        <>
          <p className="muted" data-testid="diff-summary">
            {ideaDiffRows(diff.value, true).length === 0 ? `Versions ${diff.value.from} and ${diff.value.to} are the same.` : `Changed from version ${diff.value.from} to ${diff.value.to}: ${ideaDiffRows(diff.value, true).map((r) => r.label).join(', ')}.`}
          </p>
          <table className="stack idea-diff">
            <caption className="visually-hidden">
              Version {diff.value.from} against version {diff.value.to}, field by field
            </caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Version {diff.value.from}</th>
                <th scope="col">Version {diff.value.to}</th>
              </tr>
            </thead>
            <tbody>
              {ideaDiffRows(diff.value).map((r) => (
                <tr key={r.field} data-testid="diff-row" data-field={r.field} data-changed={r.changed} className={r.changed ? 'changed' : undefined}>
                  <td data-label="Field">
                    {r.label} {r.changed ? <span className="badge warn">changed</span> : <span className="muted small">same</span>}
                  </td>
                  <td data-label={`Version ${diff.value.from}`} className={`prose${r.changed ? ' del-cell' : ''}`}>
                    {r.from}
                  </td>
                  <td data-label={`Version ${diff.value.to}`} className={`prose${r.changed ? ' add-cell' : ''}`}>
                    {r.to}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Section>
  );
}
