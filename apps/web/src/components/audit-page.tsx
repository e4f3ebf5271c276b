import { useState } from 'react';
import type { BiasAudit } from '../lib/api-types';
import { fmtOutOf, fmtRate, FLAG_TITLES, histogramLabel, scopeText } from '../lib/audit';
import { auditPath } from '../lib/route';
import { Empty, Section } from './section';
import { useApp } from './app-context';
import { errorText, useAsync } from './use-async';

/**
 * /audit (issue 25 §3): the bias audit across recorded runs (GET /v1/audit/bias?project=): the
 * flags first, then the critics and the panel judges, then self-preference. Every figure is the
 * api's; the page only lays them out.
 */
export function AuditPage({ project: initial }: { project: string }) {
  const { api } = useApp();
  const [project, setProject] = useState(initial);
  const audit = useAsync(() => api.biasAudit(project), `audit|${project.trim()}`);
  const onProject = (value: string) => {
    setProject(value);
    // The filter is kept in the URL (replaced, not pushed: one history entry per visit, not per key).
    history.replaceState(null, '', auditPath(value));
  };
  return (
    <>
      <div className="page-head">
        <h1>Bias audit</h1>
      </div>
      <p className="muted">
        Across recorded runs: critics that never say REVISE or whose ACCEPTs meet failing tests, panel judges that move with the herd or drift between versions of an idea, and roles that favour work from their own provider. A flag is a reason to read the runs, not a verdict.
      </p>
      <form className="filters" role="search" aria-label="Filter the audit" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="audit-project">Project</label>
          <input id="audit-project" value={project} onChange={(e) => onProject(e.target.value)} />
        </div>
      </form>
      {audit.state === 'loading' && <p className="muted">Loading the audit…</p>}
      {audit.state === 'error' && (
        <p role="alert" className="error">
          Could not load the audit: {errorText(audit.error)}
        </p>
      )}
      {audit.state === 'ok' && <AuditReport audit={audit.value} filtered={project.trim() !== ''} />}
    </>
  );
}

function AuditReport({ audit, filtered }: { audit: BiasAudit; filtered: boolean }) {
  if (audit.scope.runs === 0) {
    return (
      <p className="muted" data-testid="audit-empty">
        No runs {filtered ? 'of this project ' : ''}yet: the audit reads recorded runs, so there is nothing to audit.
      </p>
    );
  }
  return (
    <>
      <Flags audit={audit} />
      <Critics audit={audit} />
      <Judges audit={audit} />
      <SelfPreferenceSection audit={audit} />
      <p className="muted small">{scopeText(audit.scope)}</p>
    </>
  );
}

function Flags({ audit }: { audit: BiasAudit }) {
  return (
    <Section title="Flags">
      {audit.flags.length === 0 ? (
        <p data-testid="audit-no-flags">
          <span className="badge good">none</span> Nothing crossed a threshold in these runs.
        </p>
      ) : (
        <ul className="audit-flags">
          {audit.flags.map((f) => (
            <li key={`${f.kind}|${f.subject}`} data-testid="audit-flag" data-kind={f.kind}>
              <span className="badge bad">{FLAG_TITLES[f.kind]}</span> <strong className="mono">{f.subject}</strong> <span>{f.detail}</span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function Critics({ audit }: { audit: BiasAudit }) {
  return (
    <Section title="Critics">
      {audit.critics.length === 0 ? (
        <Empty>No build critiques in these runs.</Empty>
      ) : (
        <table className="stack audit-table">
          <caption className="visually-hidden">Each critic&apos;s verdicts, and its ACCEPTs that were followed by failing tests or a failing review</caption>
          <thead>
            <tr>
              <th scope="col">Critic</th>
              <th scope="col">Verdicts</th>
              <th scope="col">ACCEPT</th>
              <th scope="col">REVISE</th>
              <th scope="col">REJECT</th>
              <th scope="col">ACCEPT, then tests failed</th>
              <th scope="col">ACCEPT, then review failed</th>
              <th scope="col">Runs</th>
            </tr>
          </thead>
          <tbody>
            {audit.critics.map((c) => (
              <tr key={c.subject} data-testid="audit-critic" data-subject={c.subject}>
                <td data-label="Critic" className="mono">
                  {c.subject}
                </td>
                <td data-label="Verdicts" className="num">{c.verdicts}</td>
                <td data-label="ACCEPT" className="num">{fmtRate(c.accept.rate)}</td>
                <td data-label="REVISE" className="num">{fmtRate(c.revise.rate)}</td>
                <td data-label="REJECT" className="num">{fmtRate(c.reject.rate)}</td>
                <td data-label="Tests failed" className="num">{fmtOutOf(c.accepts_then_failing_tests)}</td>
                <td data-label="Review failed" className="num">{fmtOutOf(c.accepts_then_failing_review)}</td>
                <td data-label="Runs" className="num">{c.runs}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function Histogram({ histogram }: { histogram: BiasAudit['judges'][number]['scores']['histogram'] }) {
  const most = Math.max(1, ...histogram.map((b) => b.count));
  return (
    <span className="histogram" role="img" aria-label={histogramLabel(histogram)}>
      {histogram.map((b) => (
        <span key={b.score} className="bar" style={{ height: `${Math.max(b.count ? 12 : 2, Math.round((b.count / most) * 100))}%` }} title={`${b.score}: ${b.count}`} />
      ))}
    </span>
  );
}

function Judges({ audit }: { audit: BiasAudit }) {
  return (
    <Section title="Panel judges">
      {audit.judges.length === 0 ? (
        <Empty>No panel scores in these runs.</Empty>
      ) : (
        <table className="stack audit-table">
          <caption className="visually-hidden">Each panel judge&apos;s scores, its herd moves at the re-vote and its drift across versions of an idea</caption>
          <thead>
            <tr>
              <th scope="col">Judge</th>
              <th scope="col">Model</th>
              <th scope="col">Scores</th>
              <th scope="col">Mean (range)</th>
              <th scope="col">1 … 10</th>
              <th scope="col">Herd moves</th>
              <th scope="col">Drift</th>
            </tr>
          </thead>
          <tbody>
            {audit.judges.map((j) => (
              <tr key={j.subject} data-testid="audit-judge" data-subject={j.subject}>
                <td data-label="Judge">{j.judge}</td>
                <td data-label="Model" className="mono">
                  {j.provider}/{j.model}
                </td>
                <td data-label="Scores" className="num">{j.scores.count}</td>
                <td data-label="Mean (range)" className="num">
                  {j.scores.mean === null ? '—' : `${j.scores.mean.toFixed(1)} (${j.scores.min}–${j.scores.max})`}
                </td>
                <td data-label="1 … 10">
                  <Histogram histogram={j.scores.histogram} />
                </td>
                <td data-label="Herd moves" className="num">{fmtOutOf(j.herd_moves)}</td>
                <td data-label="Drift" className="num">
                  {j.drift.mean_abs_change === null ? '—' : `${j.drift.mean_abs_change.toFixed(1)} over ${j.drift.pairs} pair${j.drift.pairs === 1 ? '' : 's'}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function SelfPreferenceSection({ audit }: { audit: BiasAudit }) {
  if (audit.self_preference.length === 0) return null;
  return (
    <Section title="Self-preference">
      <p className="muted small">Each judging role&apos;s ACCEPT rate when the work it judged came from its own provider, and from another.</p>
      <table className="stack audit-table">
        <caption className="visually-hidden">ACCEPT rate by whether the author was on the judge&apos;s own provider</caption>
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col">Own provider</th>
            <th scope="col">Another provider</th>
            <th scope="col">Difference</th>
          </tr>
        </thead>
        <tbody>
          {audit.self_preference.map((s) => (
            <tr key={s.role} data-testid="audit-self-preference" data-role={s.role}>
              <td data-label="Role">{s.role}</td>
              <td data-label="Own provider" className="num">{fmtOutOf(s.same_provider)}</td>
              <td data-label="Other provider" className="num">{fmtOutOf(s.other_provider)}</td>
              <td data-label="Difference" className="num">{s.difference === null ? '—' : `${s.difference >= 0 ? '+' : ''}${s.difference.toFixed(2)}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
