import { useEffect, useMemo, useState } from 'react';
import { isEndedStatus } from '@roundtable/run-view';
import type { CallSummary, RunDetail, RunRecords } from '../lib/api-types';
import type { ApiClient } from '../lib/api-client';
import { alignRoles, alignRows, callsByRole, usageRows, verdictRows, type RoleUsage } from '../lib/compare';
import { diffRows, diffStats, lineDiff } from '../lib/compare-diff';
import { fmtCost, fmtInt } from '../lib/format';
import { comparePath, runPath } from '../lib/route';
import { findWebWorkflow } from '../workflows';
import { useApp } from './app-context';
import { Link } from './link';
import { StatusBadge } from './runs-page';
import { ScrollPre } from './scroll-pre';
import { Empty, Section } from './section';
import { VerdictBadge } from './lists';
import { errorText, useAsync } from './use-async';

/** While either run is still going, the page asks again this often (an ended run is asked once). */
const POLL_MS = 5000;

/** What the page reads of one run. */
interface Side {
  run: RunDetail;
  calls: CallSummary[];
  /** Its records when they are its workflow's; null when not loaded. */
  records: RunRecords | null;
  /** The report's markdown; null while the run goes on or when it could not be read (`reportNote` says which). */
  report: string | null;
  reportNote: string | null;
}

type Loaded = { state: 'loading' } | { state: 'ok'; side: Side } | { state: 'error'; message: string };

async function loadSide(api: ApiClient, id: string): Promise<Side> {
  const [run, calls, records] = await Promise.all([api.run(id), api.calls(id), api.records(id).catch(() => null)]);
  let report: string | null = null;
  let reportNote: string | null = null;
  if (!isEndedStatus(run.status)) reportNote = 'The report is written when the run ends.';
  else {
    try {
      report = await api.report(id);
    } catch (e) {
      reportNote = `Could not load the report: ${errorText(e as Error)}`;
    }
  }
  return { run, calls, records: records && records.workflow === run.workflow ? records : null, report, reportNote };
}

/** One run, loaded and looked at again every few seconds until it has ended. */
function useSide(id: string): Loaded {
  const { api } = useApp();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setLoaded({ state: 'loading' });
    const tick = async () => {
      try {
        const side = await loadSide(api, id);
        if (!live) return;
        setLoaded({ state: 'ok', side });
        if (!isEndedStatus(side.run.status)) timer = setTimeout(tick, POLL_MS);
      } catch (e) {
        if (live) setLoaded({ state: 'error', message: errorText(e as Error) });
      }
    };
    if (id) void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, id]);
  return loaded;
}

/**
 * Two runs side by side (`/compare?a=<id>&b=<id>`): who they are, their verdicts and whatever
 * scores their workflows give (the web workflow registry's compareRows), their usage with the
 * difference, their calls per role, and a line diff of their two reports. A is the left column,
 * B the right; on a phone the two stack.
 */
export function ComparePage({ a, b }: { a: string; b: string }) {
  const left = useSide(a);
  const right = useSide(b);

  if (Boolean(a) !== Boolean(b)) {
    const given = a || b;
    return (
      <>
        <h1>Compare runs</h1>
        <div className="pair compare-runs">
          <RunHead letter={a ? 'A' : 'B'} id={given} loaded={a ? left : right} />
          <PickOther given={given} givenIs={a ? 'a' : 'b'} />
        </div>
      </>
    );
  }

  if (!a || !b) {
    return (
      <>
        <h1>Compare runs</h1>
        <p>
          Pick two runs on the <Link to="/runs">Runs list</Link> (tick <em>Compare</em> on each) and choose <em>Compare selected</em>.
        </p>
      </>
    );
  }

  const sa = left.state === 'ok' ? left.side : null;
  const sb = right.state === 'ok' ? right.side : null;
  return (
    <>
      <div className="page-head">
        <h1>Compare runs</h1>
        <Link to={comparePath(b, a)} className="button secondary">
          Swap A and B
        </Link>
      </div>
      {a === b && <p className="muted">Both sides are the same run.</p>}
      <div className="pair compare-runs">
        <RunHead letter="A" id={a} loaded={left} />
        <RunHead letter="B" id={b} loaded={right} />
      </div>
      {sa && sb ? <Comparison a={sa} b={sb} /> : <Empty>{left.state === 'error' || right.state === 'error' ? 'Both runs are needed for the comparison.' : 'Loading both runs…'}</Empty>}
    </>
  );
}

/** How many of the newest runs are offered as the other side. */
const PICK_LIMIT = 20;

/** One side is named (from a run page's "Compare with another run"): the newest runs, each a link that makes it the other side. */
function PickOther({ given, givenIs }: { given: string; givenIs: 'a' | 'b' }) {
  const { api } = useApp();
  const runs = useAsync(() => api.listRunsPage({ limit: PICK_LIMIT }).then((p) => p.runs.filter((r) => r.id !== given)), given);
  const other = givenIs === 'a' ? 'B' : 'A';
  return (
    <section className="card" aria-labelledby="compare-pick">
      <h2 id="compare-pick">Run {other}: pick one</h2>
      {runs.state === 'loading' ? (
        <Empty>Loading the newest runs…</Empty>
      ) : runs.state === 'error' ? (
        <p role="alert" className="error">
          Could not load the runs: {errorText(runs.error)}
        </p>
      ) : runs.value.length === 0 ? (
        <Empty>There is no other run to compare with yet.</Empty>
      ) : (
        <ul className="compare-pick">
          {runs.value.map((r) => (
            <li key={r.id}>
              <Link to={givenIs === 'a' ? comparePath(given, r.id) : comparePath(r.id, given)} className="mono">
                {r.id}
              </Link>{' '}
              <span className="muted">
                {r.project} · {r.workflow} · {r.status}
                {r.verdict ? ` · ${r.verdict}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function RunHead({ letter, id, loaded }: { letter: 'A' | 'B'; id: string; loaded: Loaded }) {
  const titleId = `compare-run-${letter.toLowerCase()}`;
  return (
    <section className="card compare-run" aria-labelledby={titleId} data-testid={titleId}>
      <h2 id={titleId}>Run {letter}</h2>
      <p className="mono compare-id">
        <Link to={runPath(id)}>{id}</Link>
      </p>
      {loaded.state === 'loading' ? (
        <Empty>Loading…</Empty>
      ) : loaded.state === 'error' ? (
        <p role="alert" className="error">
          Could not load run {id}: {loaded.message}
        </p>
      ) : (
        <dl className="run-facts">
          <div>
            <dt>Project</dt>
            <dd>{loaded.side.run.project}</dd>
          </div>
          <div>
            <dt>Workflow</dt>
            <dd>{loaded.side.run.workflow}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={loaded.side.run.status} />
            </dd>
          </div>
          <div>
            <dt>Verdict</dt>
            <dd data-testid={`verdict-${letter.toLowerCase()}`}>{loaded.side.run.verdict ? <VerdictBadge verdict={loaded.side.run.verdict} /> : '—'}</dd>
          </div>
          <div>
            <dt>Confidence</dt>
            <dd>{loaded.side.run.confidence === null ? '—' : loaded.side.run.confidence.toFixed(2)}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{loaded.side.run.created_at ? <time dateTime={loaded.side.run.created_at}>{new Date(loaded.side.run.created_at).toLocaleString()}</time> : '—'}</dd>
          </div>
        </dl>
      )}
    </section>
  );
}

const rowsOf = (s: Side) => [...verdictRows(s.run), ...(findWebWorkflow(s.run.workflow)?.compareRows?.(s.run, s.records) ?? [])];

function Comparison({ a, b }: { a: Side; b: Side }) {
  const facts = useMemo(() => alignRows(rowsOf(a), rowsOf(b)), [a, b]);
  const usage = useMemo(() => usageRows(a.run.usage, b.run.usage), [a, b]);
  const roles = useMemo(() => alignRoles(callsByRole(a.calls), callsByRole(b.calls)), [a, b]);
  return (
    <>
      <Section title="Verdicts and scores" className="compare">
        <table className="compare-table narrow">
          <caption className="visually-hidden">Each run&apos;s verdict and the scores its workflow gives, A then B</caption>
          <thead>
            <tr>
              <th scope="col">Measure</th>
              <th scope="col">Run A</th>
              <th scope="col">Run B</th>
            </tr>
          </thead>
          <tbody>
            {facts.map((r) => (
              <tr key={r.label} data-testid="fact-row" data-label={r.label} className={r.a !== r.b ? 'differs' : undefined}>
                <th scope="row">{r.label}</th>
                <td data-label="Run A">{r.a}</td>
                <td data-label="Run B">{r.b}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Usage" className="compare">
        <table className="compare-table narrow">
          <caption className="visually-hidden">Each run&apos;s usage, and B minus A</caption>
          <thead>
            <tr>
              <th scope="col">Measure</th>
              <th scope="col" className="num">
                Run A
              </th>
              <th scope="col" className="num">
                Run B
              </th>
              <th scope="col" className="num">
                B − A
              </th>
            </tr>
          </thead>
          <tbody>
            {usage.map((r) => (
              <tr key={r.label} data-testid="usage-row" data-label={r.label}>
                <th scope="row">{r.label}</th>
                <td data-label="Run A" className="num">
                  {r.a}
                </td>
                <td data-label="Run B" className="num">
                  {r.b}
                </td>
                <td data-label="B − A" className="num">
                  {r.delta ?? '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Calls per role" className="compare">
        {roles.length === 0 ? (
          <Empty>Neither run has made a call yet.</Empty>
        ) : (
          <table className="stack compare-table">
            <caption className="visually-hidden">Calls, tokens and cost per role in each run (GET /v1/runs/:id/calls)</caption>
            <thead>
              <tr>
                <th scope="col">Role</th>
                {(['A', 'B'] as const).flatMap((s) => [
                  <th key={`${s}c`} scope="col" className="num">
                    {s} calls
                  </th>,
                  <th key={`${s}t`} scope="col" className="num">
                    {s} tokens
                  </th>,
                  <th key={`${s}u`} scope="col" className="num">
                    {s} cost
                  </th>,
                ])}
              </tr>
            </thead>
            <tbody>
              {roles.map((p) => (
                <tr key={p.role} data-testid="role-row" data-role={p.role}>
                  <th scope="row">{p.role}</th>
                  <RoleCells side="A" usage={p.a} />
                  <RoleCells side="B" usage={p.b} />
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <ReportDiff a={a} b={b} />
    </>
  );
}

function RoleCells({ side, usage }: { side: 'A' | 'B'; usage: RoleUsage | null }) {
  return (
    <>
      <td data-label={`${side} calls`} data-testid={`role-calls-${side.toLowerCase()}`} className="num">
        {usage ? `${fmtInt(usage.calls)}${usage.failed ? ` (${usage.failed} failed)` : ''}` : '—'}
      </td>
      <td data-label={`${side} tokens`} className="num">
        {usage ? fmtInt(usage.tokens) : '—'}
      </td>
      <td data-label={`${side} cost`} className="num">
        {usage ? fmtCost(usage.cost_usd) : '—'}
      </td>
    </>
  );
}

function ReportDiff({ a, b }: { a: Side; b: Side }) {
  const ops = useMemo(() => (a.report !== null && b.report !== null ? lineDiff(a.report, b.report) : null), [a.report, b.report]);
  const rows = useMemo(() => (ops ? diffRows(ops) : null), [ops]);
  const stats = ops ? diffStats(ops) : null;
  return (
    <Section title="Report differences" className="compare">
      {ops === null || rows === null || stats === null ? (
        <>
          {a.reportNote && <Empty>Run A: {a.reportNote}</Empty>}
          {b.reportNote && <Empty>Run B: {b.reportNote}</Empty>}
        </>
      ) : stats.added === 0 && stats.removed === 0 ? (
        <p data-testid="report-diff-stats">The two reports are the same ({fmtInt(stats.same)} lines).</p>
      ) : (
        <>
          <p data-testid="report-diff-stats">
            <span className="del">−{fmtInt(stats.removed)}</span> lines only in A&apos;s report, <span className="add">+{fmtInt(stats.added)}</span> only in B&apos;s,{' '}
            {fmtInt(stats.same)} the same.
          </p>
          <ScrollPre className="diff report-diff" aria-label="Line diff of the two reports, A to B">
            {rows.map((r, i) =>
              r.kind === 'gap' ? (
                <span key={i} className="dl hunk">
                  {`⋯ ${r.lines} unchanged line${r.lines === 1 ? '' : 's'}\n`}
                </span>
              ) : (
                <span key={i} className={`dl ${r.kind === 'same' ? 'context' : r.kind}`} data-testid={r.kind === 'same' ? undefined : `report-line-${r.kind}`}>
                  {`${r.kind === 'add' ? '+' : r.kind === 'del' ? '−' : ' '} ${r.text}\n`}
                </span>
              ),
            )}
          </ScrollPre>
        </>
      )}
    </Section>
  );
}
