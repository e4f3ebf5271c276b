// A preregistration, readably: its worksheet and its criteria as preregistered (issue 24).
import type { Preregistration } from '../lib/api-types';
import { criteriaOfPrereg } from '../lib/experiments';

/** A preregistration, readably: the approval form shows the draft with it, the pages the locked one. */
export function PreregistrationView({ prereg, idPrefix }: { prereg: Preregistration; idPrefix: string }) {
  const criteria = criteriaOfPrereg(prereg);
  return (
    <div className="prereg" data-testid="preregistration">
      <dl className="worksheet">
        <Row label="Title" value={prereg.title} />
        <Row label="Hypothesis" value={prereg.hypothesis} />
        <Row label="Expected result" value={prereg.expected_result} />
        <div className="worksheet-row">
          <dt>Method</dt>
          <dd className="prose">{prereg.method?.description}</dd>
        </div>
        <div className="worksheet-row">
          <dt>Command</dt>
          <dd>
            <code className="wrap-code" data-testid="prereg-command">
              {prereg.method?.command}
            </code>
            {prereg.method?.timeout_s !== undefined && <span className="muted small"> (timeout {prereg.method.timeout_s} s)</span>}
          </dd>
        </div>
        <div className="worksheet-row">
          <dt>Metrics</dt>
          <dd className="mono">{(prereg.method?.metrics ?? []).join(', ') || '—'}</dd>
        </div>
        <Row label="Data" value={prereg.data} />
        <div className="worksheet-row">
          <dt>Assumptions</dt>
          <dd>
            {prereg.assumptions?.length ? (
              <ul>
                {prereg.assumptions.map((a, i) => (
                  <li key={i}>{a}</li>
                ))}
              </ul>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <Row label="Domain" value={prereg.domain ?? 'general'} />
      </dl>
      <h4 id={`${idPrefix}-criteria-heading`}>Criteria, as preregistered</h4>
      <table className="stack criteria-table" aria-labelledby={`${idPrefix}-criteria-heading`}>
        <thead>
          <tr>
            <th scope="col">Criterion</th>
            <th scope="col">Kind</th>
            <th scope="col">Expression</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {criteria.map((c) => (
            <tr key={c.id} data-testid="prereg-criterion" data-criterion={c.id}>
              <td data-label="Criterion" className="mono">
                {c.id}
              </td>
              <td data-label="Kind">{c.kind}</td>
              <td data-label="Expression">
                <code className="wrap-code">{c.expr}</code>
              </td>
              <td data-label="Note">{c.note ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Row({ label, value }: { label: string; value: string | undefined | null }) {
  return (
    <div className="worksheet-row">
      <dt>{label}</dt>
      <dd className="prose">{value || '—'}</dd>
    </div>
  );
}
