import { hasEnded } from '@roundtable/run-view';
import { useCallback, useEffect, useRef, useState } from 'react';
import { runNotFound } from '../lib/act-offers';
import type { CallSummary, RunRecords, WorkflowSummary } from '../lib/api-types';
import { fmtCost, fmtInt } from '../lib/format';
import { detailKey, diffKey, endKey, recordsKey } from '../lib/refetch-keys';
import { runUsage } from '../lib/run-usage';
import { comparePath, type RunTab } from '../lib/route';
import type { StreamState } from '../lib/run-event-stream';
import { ActPanel } from './act-panel';
import { canAct, useApp } from './app-context';
import { EventsLog } from './events-log';
import { Link } from './link';
import { Notices } from './run-notices';
import { RunOverview } from './run-overview';
import { Report } from './run-report';
import { RunTabPanel, RunTabs, type TabEntry } from './run-tabs';
import { StatusBadge } from './runs-page';
import { Empty } from './section';
import { Timeline } from './timeline';
import { errorText, useAsync } from './use-async';
import { useRunFollow } from './use-run-follow';
import { workflowOfRun } from '../workflows';

const STREAM_TEXT: Record<StreamState, string> = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', ended: 'ended' };

/** What a workflow's tab is called while the run's workflow is not known yet (a reload of its URL). */
const PENDING_TAB_LABEL: Partial<Record<RunTab, string>> = { proposals: 'Proposals', debate: 'Debate', diff: 'Diff & tests', experiment: 'Experiment' };

/**
 * The run page: a header (status, acts, the stream's state) over tabs, each at its own URL — the
 * overview, the calls, the workflow's own tabs, the report and the raw events. The live view
 * (folded from the event stream) and the documents fetched as events say they changed live here,
 * so a tab change refetches nothing.
 */
export function RunPage({ runId, tab }: { runId: string; tab: RunTab }) {
  const { api, me } = useApp();
  const { view, envelopes, stream, refused, reconnects, restart, endings } = useRunFollow(runId);
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
  // Only once the view shows an implementation (a branch to diff); a workflow this page does not
  // know yet (or at all) with one is asked too: a 409 costs nothing.
  const diffAt = (workflow?.hasDiff ?? true) ? diffKey(view) : null;
  const diff = useAsync(diffAt !== null ? () => api.diff(runId) : null, `diff|${diffAt}`);
  const report = useAsync(ends !== null ? () => api.report(runId) : null, `report|${ends}`);
  const workflows = useAsync<WorkflowSummary[]>(() => api.workflows(), 'workflows');
  // The calls with their queue, start and finish times (the waterfall, the burn): again as each call
  // is queued or ends, and now and then while one is in flight on the overview (its start is no event).
  const [tick, setTick] = useState(0);
  const inFlight = view.calls.some((c) => c.state === 'queued');
  useEffect(() => {
    if (!inFlight || tab !== 'overview') return;
    const t = setInterval(() => setTick((n) => n + 1), 2000);
    return () => clearInterval(t);
  }, [inFlight, tab]);
  const callsKey = `${view.calls.length}|${view.calls.filter((c) => c.state !== 'queued').length}|${inFlight && tab === 'overview' ? tick : ''}`;
  const calls = useAsync<CallSummary[]>(view.lastSequence > 0 ? () => api.calls(runId) : null, callsKey);

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
  // The Budget panel reads the same figures (lib/run-usage.ts), so the two never disagree.
  const usage = runUsage(view, detailValue);
  const project = view.project ?? detailValue?.project ?? null;
  const sectionsProps = { view, records: workflow && rec?.workflow === workflow.name ? rec : null, runId, diff: diffAt !== null ? diff : null };

  const own = workflow?.tabs ?? [];
  const tabs: TabEntry[] = [{ id: 'overview', label: 'Overview' }, { id: 'calls', label: 'Calls' }, ...own.map((t) => ({ id: t.id, label: t.label }))];
  if (!workflow && PENDING_TAB_LABEL[tab]) tabs.push({ id: tab, label: PENDING_TAB_LABEL[tab]! });
  tabs.push({ id: 'report', label: 'Report' }, { id: 'events', label: 'Events' });
  const shown = tabs.some((t) => t.id === tab) ? tab : 'overview';
  const ownTab = own.find((t) => t.id === shown);

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
        <Link to="/runs">Runs</Link> / <span className="mono">{runId}</span> · <Link to={comparePath(runId)}>Compare with another run</Link>
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
            {fmtInt(usage.calls)} · {fmtInt(usage.tokens)} tokens · {fmtCost(usage.costUsd)}
          </dd>
        </div>
        {detailValue?.forked_from && (
          <div data-testid="forked-from">
            <dt>Forked from</dt>
            <dd>
              <Link to={`/runs/${encodeURIComponent(detailValue.forked_from.run_id)}`} className="mono">
                {detailValue.forked_from.run_id}
              </Link>{' '}
              at {detailValue.forked_from.stage} ({detailValue.forked_from.copied_calls} calls copied)
            </dd>
          </div>
        )}
        {detailValue?.handed_off_from && (
          <div data-testid="handed-off-from">
            <dt>Handed on from</dt>
            <dd>
              idea{' '}
              <Link to={`/ideas/${encodeURIComponent(detailValue.handed_off_from.idea_id)}`} className="mono">
                {detailValue.handed_off_from.idea_id}
              </Link>{' '}
              version {detailValue.handed_off_from.version}, panel{' '}
              <Link to={`/runs/${encodeURIComponent(detailValue.handed_off_from.panel_run_id)}`} className="mono">
                {detailValue.handed_off_from.panel_run_id}
              </Link>{' '}
              ({detailValue.handed_off_from.recommendation})
            </dd>
          </div>
        )}
        {detailValue && detailValue.forks.length > 0 && (
          <div data-testid="forks">
            <dt>Forks</dt>
            <dd>
              {detailValue.forks.map((f, i) => (
                <span key={f.id}>
                  {i > 0 && ', '}
                  <Link to={`/runs/${encodeURIComponent(f.id)}`} className="mono">
                    {f.id}
                  </Link>{' '}
                  from {f.stage}
                </span>
              ))}
            </dd>
          </div>
        )}
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
      <RunTabs runId={runId} tabs={tabs} current={shown} />
      <RunTabPanel id={shown}>
        {records.state === 'error' && view.lastSequence > 0 && <p className="muted">The run&apos;s records could not be loaded ({errorText(records.error)}); the page shows what the events say.</p>}
        {shown === 'overview' && <RunOverview runId={runId} view={view} detail={detailValue} workflows={workflows} calls={calls} />}
        {shown === 'calls' && <Timeline view={view} runId={runId} />}
        {ownTab && <ownTab.Panel {...sectionsProps} />}
        {!workflow && PENDING_TAB_LABEL[shown] && <Empty>Loading the run…</Empty>}
        {shown === 'report' && <Report report={ended ? report : null} />}
        {shown === 'events' && <EventsLog envelopes={envelopes} />}
      </RunTabPanel>
    </div>
  );
}
