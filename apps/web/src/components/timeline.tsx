import { callDurationMs, type CallView, type RunView } from '@roundtable/run-view';
import { fmtCost, fmtDuration, fmtInt } from '../lib/format';
import { callPath } from '../lib/route';
import { Link } from './link';
import { Empty, Section } from './section';

function Validity({ call }: { call: CallView }) {
  if (call.state === 'queued') return <span className="badge pending">running…</span>;
  if (call.state === 'failed') return <span className="badge bad" title={call.error ?? undefined}>failed{call.errorCode ? ` (${call.errorCode})` : ''}</span>;
  if (call.valid === false) return <span className="badge bad">invalid</span>;
  return <span className="badge good">valid</span>;
}

const tokensOf = (c: CallView) => (c.inputTokens === null && c.outputTokens === null ? null : (c.inputTokens ?? 0) + (c.outputTokens ?? 0));

/** The stages the run went through, then one row per agent call in the order it was queued. */
export function Timeline({ view, runId }: { view: RunView; runId: string }) {
  return (
    <Section title="Timeline">
      {view.stages.length > 0 && (
        <ol className="stages" aria-label="Stages">
          {view.stages.map((s) => (
            <li key={s.sequence} title={s.reason ?? undefined} className={s.stage === view.stage ? 'current' : undefined}>
              {s.stage}
            </li>
          ))}
        </ol>
      )}
      {view.calls.length === 0 ? (
        <Empty>No agent calls yet.</Empty>
      ) : (
        <table className="stack timeline">
          <caption className="visually-hidden">Agent calls, in the order they were queued</caption>
          <thead>
            <tr>
              {['Call', 'Stage', 'Role', 'Provider / model', 'Duration', 'Tokens', 'Cost', 'Validity'].map((h) => (
                <th key={h} scope="col" className={['Duration', 'Tokens', 'Cost'].includes(h) ? 'num' : undefined}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {view.calls.map((c) => (
              <tr key={c.callId} data-testid="call-row" className={`call-${c.state}`}>
                <td data-label="Call">
                  <Link to={callPath(runId, c.callId)}>{c.label ?? c.role}</Link>
                  {c.attempt > 1 && <span className="muted"> (attempt {c.attempt})</span>}
                  {c.copiedFrom && (
                    <span className="muted" data-testid="copied-call">
                      {' '}
                      copied from <span className="mono">{c.copiedFrom}</span>
                    </span>
                  )}
                  {c.gist && <div className="gist muted">{c.gist}</div>}
                </td>
                <td data-label="Stage">{c.stage}</td>
                <td data-label="Role">{c.role}</td>
                <td data-label="Model">
                  {c.provider} / <span className="mono">{c.model}</span>
                </td>
                <td data-label="Duration" className="num">
                  {fmtDuration(callDurationMs(c))}
                </td>
                <td data-label="Tokens" className="num">
                  {fmtInt(tokensOf(c))}
                </td>
                <td data-label="Cost" className="num">
                  {fmtCost(c.costUsd)}
                </td>
                <td data-label="Validity">
                  <Validity call={c} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
