import { hasEnded, type RunView } from '@roundtable/run-view';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { runNotFound } from '../lib/act-offers';
import type { RunRecords } from '../lib/api-types';
import { fmtCost, fmtInt } from '../lib/format';
import { detailKey, endKey, recordsKey } from '../lib/refetch-keys';
import { reportHtml } from '../lib/report-html';
import type { StreamState } from '../lib/run-event-stream';
import { ActPanel } from './act-panel';
import { canAct, useApp } from './app-context';
import { Budget } from './budget';
import { Link } from './link';
import { StatusBadge } from './runs-page';
import { Empty, Section } from './section';
import { Timeline } from './timeline';
import { errorText, useAsync, type Async } from './use-async';
import { useRunFollow } from './use-run-follow';
import { workflowOfRun } from '../workflows';

const STREAM_TEXT: Record<StreamState, string> = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', ended: 'ended' };

function Notices({ view }: { view: RunView }) {
  const lines = view.notices
    .map((n) => {
      switch (n.kind) {
        case 'provider_fallback':
          return `${n.payload.role} moved from ${n.payload.from} to ${n.payload.to}: ${n.payload.reason}`;
        case 'provider_unserved':
          return `No worker serves ${n.payload.provider} yet (${n.payload.reason}); start ${n.payload.start}.`;
        case 'panel_warning':
          return `Panel warning (${n.payload.kind}): ${n.payload.detail}`;
        default:
          return null; // budget warnings sit in Budget, rejected files in Implementations
      }
    })
    .filter((l): l is string => l !== null);
  if (!lines.length && !view.halts.length) return null;
  return (
    <ul className="notices" aria-label="Notices">
      {view.halts.map((h) => (
        <li key={h.sequence} className="warn">
          Halted: {h.reason}
        </li>
      ))}
      {lines.map((l, i) => (
        <li key={i} className="warn">
          {l}
        </li>
      ))}
    </ul>
  );
}

function Report({ report }: { report: Async<string> | null }) {
  const html = useMemo(() => (report?.state === 'ok' ? reportHtml(report.value) : null), [report]);
  return (
    <Section title="Report">
      {report === null ? (
        <Empty>The report is written when the run ends.</Empty>
      ) : report.state === 'loading' ? (
        <Empty>Loading the report…</Empty>
      ) : report.state === 'error' ? (
        <p className="error">Could not load the report: {errorText(report.error)}</p>
      ) : (
        // reportHtml escapes every raw HTML token and unsafe link: model text never becomes markup.
        <div className="report prose" dangerouslySetInnerHTML={{ __html: html ?? '' }} />
      )}
    </Section>
  );
}

/** The run page: the live view (folded from the event stream), and the documents fetched as events say they changed. */
export function RunPage({ runId }: { runId: string }) {
  const { api, me } = useApp();
  const { view, stream, refused, reconnects, restart, endings } = useRunFollow(runId);
  const [acted, setActed] = useState<string | null>(null);
  const onActed = useCallback(
    (said: string) => {
      setActed(said);
      eagerUntil.current = Date.now() + 20_000;
      restart();
    },
    [restart],
  );
  const ended = hasEnded(view);
  const workflow = workflowOfRun(view);

  // Documents read by id, each fetched when the folded view says it changed (lib/refetch-keys.ts).
  const detail = useAsync(() => api.run(runId), detailKey(view));
  const recKey = recordsKey(view);
  const records = useAsync<RunRecords>(recKey === null ? null : () => api.records(runId), recKey ?? 'none');
  const ends = endKey(view);
  // A workflow this page does not know yet (or at all) is asked for a diff: a 409 costs nothing.
  const diff = useAsync(ends !== null && (workflow?.hasDiff ?? true) ? () => api.diff(runId) : null, `diff|${ends}`);
  const report = useAsync(ends !== null ? () => api.report(runId) : null, `report|${ends}`);

  // Another tab (or the CLI) may resume or appeal an ended run, and an act's first events come after
  // its 202: look at the log again now and then (a 204 while nothing is new), often just after an act.
  const detailValue = detail.state === 'ok' ? detail.value : null;
  const eagerUntil = useRef(0);
  useEffect(() => {
    if (stream !== 'ended' || refused) return;
    const t = setTimeout(restart, Date.now() < eagerUntil.current ? 1000 : 5000);
    return () => clearTimeout(t);
  }, [stream, refused, restart, endings]);

  const rec = records.state === 'ok' ? records.value : null;
  const project = view.project ?? detailValue?.project ?? null;

  // An id the api does not know: its 404 says so, and there is no run to draw or act on.
  const notFound = runNotFound(detail.state === 'error' ? detail.error : null, null);
  if (notFound) {
    return (
      <div className="run-page not-found">
        <p className="crumbs">
          <Link to="/runs">Runs</Link> / <span className="mono">{runId}</span>
        </p>
        <h1>Run not found</h1>
        <p className="error" role="alert">
          {notFound}
        </p>
        <p>
          <Link to="/runs">Back to the runs</Link>
        </p>
      </div>
    );
  }

  return (
    <div className="run-page">
      <p className="crumbs">
        <Link to="/runs">Runs</Link> / <span className="mono">{runId}</span>
      </p>
      <h1>
        Run <span className="mono">{runId}</span>
      </h1>
      <dl className="run-facts">
        <div>
          <dt id="lbl-stream">Stream</dt>
          <dd>
            <span role="status" aria-labelledby="lbl-stream" className={`stream stream-${stream}`}>
              {STREAM_TEXT[stream]}
            </span>
          </dd>
        </div>
        <div>
          <dt id="lbl-run-status">Run status</dt>
          <dd aria-labelledby="lbl-run-status">
            <StatusBadge status={view.status === 'unknown' ? '…' : view.status} />
          </dd>
        </div>
        <div>
          <dt id="lbl-verdict">Verdict</dt>
          <dd aria-labelledby="lbl-verdict">{view.verdict ?? '—'}</dd>
        </div>
        <div>
          <dt>Project</dt>
          <dd>{project ?? '—'}</dd>
        </div>
        <div>
          <dt>Workflow</dt>
          <dd>{view.workflow ?? '—'}</dd>
        </div>
        <div>
          <dt>Stage</dt>
          <dd>{view.stage ?? '—'}</dd>
        </div>
        <div>
          <dt>Calls</dt>
          <dd>
            {fmtInt(view.usage.calls)} · {fmtInt(view.usage.tokens)} tokens · {fmtCost(view.usage.costUsd)}
          </dd>
        </div>
      </dl>
      {stream === 'reconnecting' && (
        <p className="warn" role="alert">
          The event stream dropped; reconnecting with Last-Event-ID {view.lastSequence} (the page keeps what it has).
        </p>
      )}
      {stream === 'live' && reconnects > 0 && (
        <p className="muted">
          Reconnected after the stream dropped ({reconnects}×): the api replayed after the last event seen, and the view folds each event once.
        </p>
      )}
      {refused && (
        <p className="error" role="alert">
          The event stream was refused: {refused}
        </p>
      )}
      {view.endReason && <p className={view.status === 'done' ? 'muted' : 'warn'}>{view.endReason}</p>}
      <Notices view={view} />
      {canAct(me) && <ActPanel runId={runId} view={view} detail={detailValue} onActed={onActed} />}
      {acted && (
        <p role="status" className="good-text" data-testid="act-outcome">
          {acted}
        </p>
      )}
      <Timeline view={view} runId={runId} />
      <Budget view={view} detail={detailValue} />
      {records.state === 'error' && view.lastSequence > 0 && <p className="muted">The run&apos;s records could not be loaded ({errorText(records.error)}); the page shows what the events say.</p>}
      {workflow && <workflow.Sections view={view} records={rec?.workflow === workflow.name ? rec : null} runId={runId} diff={ended ? diff : null} />}
      <Report report={ended ? report : null} />
    </div>
  );
}
