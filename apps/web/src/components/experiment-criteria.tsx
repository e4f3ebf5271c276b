// An experiment's criteria as code read them, beside the interpreter's reading (issue 24).
import type { CriterionRead } from '../lib/api-types';

/** Each criterion as code read it against the metrics (what decides), with the interpreter's reading and evidence beside it. */
export function CriteriaTable({ criteria }: { criteria: readonly CriterionRead[] }) {
  return (
    <table className="stack criteria-table" data-testid="criteria-table">
      <caption className="visually-hidden">Each criterion: whether it holds, by code, and the interpreter&apos;s reading</caption>
      <thead>
        <tr>
          <th scope="col">Criterion</th>
          <th scope="col">Kind</th>
          <th scope="col">Expression</th>
          <th scope="col">Holds (by code)</th>
          <th scope="col">Interpreter&apos;s reading</th>
        </tr>
      </thead>
      <tbody>
        {criteria.map((c) => (
          <tr key={c.id} data-testid="criterion-row" data-criterion={c.id} data-holds={c.holds}>
            <td data-label="Criterion" className="mono">
              {c.id}
            </td>
            <td data-label="Kind">{c.kind}</td>
            <td data-label="Expression">
              <code className="wrap-code">{c.expr}</code>
            </td>
            <td data-label="Holds (by code)">
              <span className={`badge ${c.holds ? (c.kind === 'failure' ? 'bad' : 'good') : ''}`}>{c.holds ? 'holds' : 'does not hold'}</span>
            </td>
            <td data-label="Interpreter's reading">
              {c.reading ? (
                <>
                  <span className={c.reading.holds === c.holds ? '' : 'warn'}>
                    {c.reading.holds ? 'holds' : 'does not hold'}
                    {c.reading.holds !== c.holds && ' (disagrees with code)'}
                  </span>
                  <div className="muted small prose">{c.reading.evidence}</div>
                </>
              ) : (
                <span className="muted">no reading</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
