import { useEffect, useMemo, useState } from 'react';
import type { ExperimentDetail } from '../lib/api-types';
import { decisionClass, liveRunOf, runBlockedReason, shortHash, sourceOf } from '../lib/experiments';
import { reportHtml } from '../lib/report-html';
import { EXPERIMENTS_PATH, ideaPath, runPath, runTabPath } from '../lib/route';
import { actError } from './act-outcome';
import { canAct, useApp } from './app-context';
import { CriteriaTable } from './experiment-criteria';
import { DecisionSection, decisionFactsOf } from './experiment-decision';
import { MethodSection } from './experiment-method';
import { PreregistrationView } from './experiment-prereg';
import { ReviewSection } from './experiment-review';
import { Link } from './link';
import { StatusBadge } from './runs-page';
import { Empty, Section } from './section';
import { errorText, useAsync } from './use-async';

/** How often the page asks again while a run of the experiment is live (the run's own page streams its events). */
const POLL_MS = 2000;

/**
 * /experiments/:id (issue 24): the locked preregistration with its hash and pinned commit, where
 * it came from, its runs, what the method measured, each criterion, the decision code made, an
 * override request (never applied), the critic's review, the report, and Run.
 */
export function ExperimentPage({ experimentId }: { experimentId: string }) {
  const { api } = useApp();
  const [generation, setGeneration] = useState(0);
  const detail = useAsync(() => api.experiment(experimentId), `${experimentId}|${generation}`);
  const d = detail.state === 'ok' ? detail.value : null;
  // While a run is live (or one was just asked for), ask again now and then: the decision comes at its end.
  const [waiting, setWaiting] = useState(false);
  const live = d ? liveRunOf(d) !== null : false;
  useEffect(() => {
    if (!live && !waiting) return;
    const t = setTimeout(() => setGeneration((g) => g + 1), POLL_MS);
    return () => clearTimeout(t);
  }, [live, waiting, generation]);
  useEffect(() => {
    if (waiting && d && (d.decision || (d.runs.length > 0 && !live))) setWaiting(false);
  }, [waiting, d, live]);

  if (detail.state === 'error' && !d) {
    return (
      <>
        <p className="crumbs">
          <Link to={EXPERIMENTS_PATH}>Experiments</Link> / <span className="mono">{experimentId}</span>
        </p>
        <h1>Experiment {experimentId}</h1>
        <p role="alert" className="error">
          Could not load the experiment: {errorText(detail.error)}
        </p>
      </>
    );
  }
  if (!d) return <p className="muted">Loading the experiment…</p>;
  return <ExperimentView detail={d} onStarted={() => { setWaiting(true); setGeneration((g) => g + 1); }} />;
}

function ExperimentView({ detail: d, onStarted }: { detail: ExperimentDetail; onStarted: () => void }) {
  const { me } = useApp();
  const source = sourceOf(d.source);
  const interp = d.interpretation;
  const metricNames = d.preregistration?.method.metrics ?? [];
  return (
    <>
      <p className="crumbs">
        <Link to={EXPERIMENTS_PATH}>Experiments</Link> / <span className="mono">{d.id}</span>
      </p>
      <h1>{d.title || `Experiment ${d.id}`}</h1>
      <dl className="run-facts">
        <div>
          <dt id="lbl-exp-status">Status</dt>
          <dd aria-labelledby="lbl-exp-status" data-testid="experiment-status">
            <span className="badge">{d.status}</span>
          </dd>
        </div>
        <div>
          <dt id="lbl-exp-decision">Decision</dt>
          <dd aria-labelledby="lbl-exp-decision">{d.decision ? <span className={`badge ${decisionClass(d.decision)}`}>{d.decision}</span> : '—'}</dd>
        </div>
        <div>
          <dt>Project</dt>
          <dd>{d.project}</dd>
        </div>
        <div>
          <dt>Hash</dt>
          <dd>{d.prereg_hash ? <HashLine hash={d.prereg_hash} /> : <span className="muted">not locked</span>}</dd>
        </div>
        <div>
          <dt>Pinned commit</dt>
          <dd className="mono" title={d.commit ?? undefined} data-testid="experiment-commit">
            {d.commit ? d.commit.slice(0, 12) : '—'}
          </dd>
        </div>
        <div>
          <dt>Repository</dt>
          <dd className="mono wrap-code">{d.repo ?? '—'}</dd>
        </div>
        {d.locked_at && (
          <div>
            <dt>Locked</dt>
            <dd>
              <time dateTime={d.locked_at}>{whenText(d.locked_at)}</time>
            </dd>
          </div>
        )}
        <div>
          <dt>Source</dt>
          <dd data-testid="experiment-source">
            {!source ? (
              'written by hand'
            ) : source.kind === 'build' ? (
              <>
                build run{' '}
                <Link to={runPath(source.runId)} className="mono">
                  {source.runId}
                </Link>{' '}
                (question {source.questionId})
              </>
            ) : (
              <>
                idea{' '}
                <Link to={ideaPath(source.ideaId)} className="mono">
                  {source.ideaId}
                </Link>
                {source.panelRunId && (
                  <>
                    , panel{' '}
                    <Link to={runPath(source.panelRunId)} className="mono">
                      {source.panelRunId}
                    </Link>
                  </>
                )}
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={d.created_at}>{whenText(d.created_at)}</time>
            {d.created_by ? ` by ${d.created_by}` : ''}
          </dd>
        </div>
      </dl>
      {canAct(me) && <RunButton detail={d} onStarted={onStarted} />}
      <DecisionSection facts={decisionFactsOf(interp, null, d.decision)} />
      <Section title="Criteria">
        {interp ? (
          <CriteriaTable criteria={interp.criteria} />
        ) : (
          <Empty>{d.preregistration ? 'Each criterion is read once the method has measured (the preregistered criteria are below).' : 'No criteria yet: the draft is not locked.'}</Empty>
        )}
      </Section>
      <MethodSection command={d.preregistration?.method.command ?? null} metricNames={metricNames} metrics={d.result?.metrics ?? null} exitCode={d.result?.exit_code ?? null} error={null} result={d.result} />
      <ReviewSection summary={interp?.summary ?? null} caveats={[]} review={interp?.review ?? null} />
      <Section title="Preregistration">{d.preregistration ? <PreregistrationView prereg={d.preregistration} idPrefix="exp-prereg" /> : <Empty>No preregistration yet: a draft is approved at its run&apos;s preregistration gate.</Empty>}</Section>
      <Section title="Runs">
        {d.runs.length === 0 ? (
          <Empty>No run yet.</Empty>
        ) : (
          <ul className="experiment-runs">
            {d.runs.map((r) => (
              <li key={r.id} data-testid="experiment-run">
                <Link to={runPath(r.id)} className="mono">
                  {r.id}
                </Link>{' '}
                <StatusBadge status={r.status} /> <span className="muted">at {r.stage}</span> ·{' '}
                <Link to={runTabPath(r.id, 'experiment')} aria-label={`The Experiment tab of run ${r.id}`}>
                  Experiment tab
                </Link>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <ExperimentReport detail={d} />
    </>
  );
}

/** The hash's first 12 digits, and a button that copies all of it. */
function HashLine({ hash }: { hash: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () => {
    // Without a clipboard (an insecure origin), the hash is said instead, to be selected by hand.
    if (!navigator.clipboard) {
      setCopied(`The full hash is ${hash}`);
      return;
    }
    navigator.clipboard.writeText(hash).then(
      () => setCopied('Copied the full hash.'),
      () => setCopied(`Could not copy; the full hash is ${hash}`),
    );
  };
  return (
    <span className="hash-line">
      <span className="mono" title={hash} data-testid="experiment-hash">
        {shortHash(hash)}
      </span>
      <button type="button" className="secondary small" onClick={copy} aria-label="Copy the full hash">
        Copy
      </button>
      <span role="status" className="muted small">
        {copied ?? ''}
      </span>
    </span>
  );
}

/** POST /v1/experiments/:id/run; why not, when it cannot; the api's 409 in an error card. */
function RunButton({ detail, onStarted }: { detail: ExperimentDetail; onStarted: () => void }) {
  const { api } = useApp();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [started, setStarted] = useState<string | null>(null);
  const blocked = runBlockedReason(detail);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await api.runExperiment(detail.id);
      setStarted(r.run_id);
      onStarted();
    } catch (e) {
      setError(actError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="run-experiment-heading" className="card">
      <h2 id="run-experiment-heading">Run</h2>
      <p className="muted">Runs the locked method at the pinned commit in the sandbox; an interpreter reads each criterion and a critic on another provider reviews the reading. Code decides.</p>
      <button type="button" onClick={() => void run()} disabled={busy || blocked !== null} aria-describedby={blocked ? 'run-blocked' : undefined}>
        Run
      </button>
      {blocked && (
        <p id="run-blocked" className="muted run-blocked" data-testid="run-blocked">
          {blocked}
        </p>
      )}
      {started && (
        <p role="status" className="good-text" data-testid="run-started">
          Run <Link to={runPath(started)} className="mono">{started}</Link> started.
        </p>
      )}
      {error && (
        <div role="alert" className="card error-card" data-testid="run-error">
          <p className="error">{error}</p>
        </div>
      )}
    </section>
  );
}

/** GET /v1/experiments/:id/report, rendered like the run report; asked again as the experiment changes. */
function ExperimentReport({ detail }: { detail: ExperimentDetail }) {
  const { api } = useApp();
  const report = useAsync(() => api.experimentReport(detail.id), `${detail.id}|${detail.status}|${detail.decision ?? ''}|${detail.runs.length}`);
  const html = useMemo(() => (report.state === 'ok' ? reportHtml(report.value) : null), [report]);
  return (
    <Section title="Report">
      {report.state === 'loading' ? (
        <Empty>Loading the report…</Empty>
      ) : report.state === 'error' ? (
        <p className="error">Could not load the report: {errorText(report.error)}</p>
      ) : (
        // reportHtml escapes every raw HTML token and unsafe link: model text never becomes markup.
        <div className="report prose" data-testid="experiment-report" dangerouslySetInnerHTML={{ __html: html ?? '' }} />
      )}
    </Section>
  );
}

/** 2026-04-01T09:30:12.345Z as 2026-04-01 09:30 UTC. */
const whenText = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
