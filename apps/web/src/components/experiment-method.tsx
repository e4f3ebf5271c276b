// An experiment's method: the pinned command and what it measured (issue 24).
import type { ExperimentResult } from '../lib/api-types';
import { fmtMetric, metricRows } from '../lib/experiments';
import { ScrollPre } from './scroll-pre';
import { Empty, Section } from './section';

/** What the method measured: its metrics in the order the preregistration names them, the exit code, and an error. */
export function MeasuredTable({ metricNames, metrics, caption }: { metricNames: readonly string[]; metrics: Record<string, number> | null | undefined; caption: string }) {
  const rows = metricRows(metricNames, metrics);
  if (rows.length === 0) return <Empty>No metrics.</Empty>;
  return (
    <table className="stack metrics-table" data-testid="metrics-table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Metric</th>
          <th scope="col" className="num">
            Value
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.name} data-testid="metric-row" data-metric={r.name}>
            <td data-label="Metric" className="mono">
              {r.name}
              {!r.declared && <span className="muted small"> (not preregistered)</span>}
            </td>
            <td data-label="Value" className="num">
              {r.value === null ? <span className="muted">not measured</span> : fmtMetric(r.value)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The method's run: the pinned command, and what it measured (from the events while it runs, from the stored result after). */
export function MethodSection({ command, metricNames, metrics, exitCode, error, result }: { command: string | null; metricNames: readonly string[]; metrics: Record<string, number> | null; exitCode: number | null; error: string | null; result: ExperimentResult | null }) {
  return (
    <Section title="Method and measurements">
      {command === null && !result ? (
        <Empty>The method has not run yet.</Empty>
      ) : (
        <>
          <dl className="run-facts">
            {command !== null && (
              <div>
                <dt>Command</dt>
                <dd>
                  <code className="wrap-code">{command}</code>
                </dd>
              </div>
            )}
            <div>
              <dt>Exit code</dt>
              <dd data-testid="method-exit-code">{exitCode ?? result?.exit_code ?? '—'}</dd>
            </div>
            {result && (
              <>
                <div>
                  <dt>Pinned commit</dt>
                  <dd className="mono">{result.commit.slice(0, 12)}</dd>
                </div>
                <div>
                  <dt>Duration</dt>
                  <dd>{fmtMetric(result.duration_s)} s</dd>
                </div>
              </>
            )}
          </dl>
          {error && (
            <p className="error" data-testid="method-error">
              The method failed: {error}
            </p>
          )}
          <MeasuredTable metricNames={metricNames} metrics={metrics ?? result?.metrics ?? null} caption="What the method measured" />
          {result?.output_tail && (
            <details>
              <summary>The output&apos;s last lines</summary>
              <ScrollPre className="code">{result.output_tail}</ScrollPre>
            </details>
          )}
        </>
      )}
    </Section>
  );
}
