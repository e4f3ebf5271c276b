import type { RunView } from '@roundtable/run-view';
import type { CriterionRead, ExperimentInterpretation, ExperimentRecords, ExperimentResult, Preregistration } from '../lib/api-types';
import { criteriaOfPrereg, decisionClass, fmtMetric, metricRows } from '../lib/experiments';
import { experimentPath } from '../lib/route';
import { Link } from './link';
import { Items } from './lists';
import { ScrollPre } from './scroll-pre';
import { Empty, Section } from './section';

/**
 * An experiment (issue 24) as the run page's Experiment tab and the experiment page show it: the
 * preregistration, the method and what it measured, each criterion as code read it beside the
 * interpreter's reading, the decision code made, an interpreter's other decision (an override
 * request, never applied), and the critic's review.
 */

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

/** What the decision panel reads: an experiments row's interpretation, or the run's experiment_decided event. */
export interface DecisionFacts {
  decision: string | null;
  computed: string | null;
  overrideRequest: { decision: string; reason: string } | null;
  openQuestion: string | null;
  notes: readonly string[];
}

export function decisionFactsOf(outcome: ExperimentInterpretation | null, event: NonNullable<RunView['experiment']>['decision'] | null, decision: string | null): DecisionFacts | null {
  if (outcome) return { decision: decision ?? outcome.computed, computed: outcome.computed, overrideRequest: outcome.override_request, openQuestion: outcome.open_question, notes: outcome.notes };
  if (event) return { decision: event.decision, computed: event.computed, overrideRequest: event.override_request, openQuestion: event.open_question, notes: [] };
  if (decision) return { decision, computed: null, overrideRequest: null, openQuestion: null, notes: [] };
  return null;
}

/** The decision, big, said to be code's; an override request, said not to be applied; an open question. */
export function DecisionSection({ facts }: { facts: DecisionFacts | null }) {
  return (
    <Section title="Decision" className="decision-card">
      {!facts?.decision ? (
        <Empty>Not decided yet: code decides once the method has measured and the interpreter and critic have read it.</Empty>
      ) : (
        <>
          <p className="decision-line">
            <span className={`badge decision-big ${decisionClass(facts.decision)}`} data-testid="experiment-decision">
              {facts.decision}
            </span>{' '}
            <span className="muted" data-testid="decided-by">
              decided by code
              {facts.computed && facts.computed !== facts.decision ? ` (the criteria alone give ${facts.computed})` : ' from the preregistered criteria'}
            </span>
          </p>
          <Items title="Why" items={[...facts.notes]} />
          {facts.overrideRequest && (
            <div className="items override" data-testid="override-request">
              <h3 className="h4">
                Override request <span className="badge warn">not applied</span>
              </h3>
              <p>
                The interpreter would decide <strong>{facts.overrideRequest.decision}</strong>: {facts.overrideRequest.reason}
              </p>
            </div>
          )}
          {facts.openQuestion && (
            <div className="items" data-testid="open-question">
              <h3 className="h4">Open question</h3>
              <p className="prose">{facts.openQuestion}</p>
            </div>
          )}
        </>
      )}
    </Section>
  );
}

/** The interpreter's summary and the critic's review of the reading. */
export function ReviewSection({ summary, caveats, review }: { summary: string | null; caveats: readonly string[]; review: { agrees: boolean; disagreements: readonly string[]; summary: string } | null }) {
  return (
    <Section title="Interpretation and review">
      {summary ? (
        <div className="items">
          <h3 className="h4">The interpreter&apos;s summary</h3>
          <p className="prose">{summary}</p>
        </div>
      ) : (
        <Empty>No interpretation yet.</Empty>
      )}
      <Items title="Caveats" items={[...caveats]} />
      {review ? (
        <div className="items" data-testid="critic-review">
          <h3 className="h4">
            The critic&apos;s review <span className={`badge ${review.agrees ? 'good' : 'warn'}`}>{review.agrees ? 'agrees' : 'disagrees'}</span>
          </h3>
          <p className="prose">{review.summary}</p>
          <Items title="Disagreements" items={[...review.disagreements]} />
        </div>
      ) : (
        <Empty>No review yet.</Empty>
      )}
    </Section>
  );
}

/** The run page's Experiment tab. */
export function ExperimentSections({ view, records }: { view: RunView; records: ExperimentRecords | null }) {
  const gate = view.people.gate;
  const gateDraft = gate?.name === 'preregistration' ? (gate.subject.preregistration as Preregistration | undefined) ?? null : null;
  const prereg = records?.preregistration ?? null;
  const draft = prereg ? null : (records?.draft?.body ?? gateDraft);
  const method = view.experiment?.method ?? null;
  const outcome = records?.outcome ?? null;
  const metricNames = method?.metricNames ?? prereg?.method.metrics ?? [];
  const experimentId = records?.experiment_id ?? ((gate?.subject.experiment_id as string | undefined) || null);
  const interpretation = records?.interpretation?.body ?? null;
  return (
    <>
      {experimentId && (
        <p>
          <Link to={experimentPath(experimentId)} data-testid="experiment-link">
            Experiment <span className="mono">{experimentId}</span>
          </Link>
        </p>
      )}
      <Section title="Preregistration">
        {prereg ? (
          <PreregistrationView prereg={prereg} idPrefix="run-prereg" />
        ) : draft ? (
          <>
            <p className="warn" data-testid="draft-waiting">
              {gate?.name === 'preregistration' ? 'A draft, waiting at the preregistration gate: it is locked only when a person approves it.' : 'A draft, not locked.'}
              {records?.draft?.label ? ` (${records.draft.label})` : ''}
            </p>
            <PreregistrationView prereg={draft} idPrefix="run-draft" />
          </>
        ) : (
          <Empty>No preregistration yet{view.stage === 'DRAFT' ? ': the proposer is drafting one.' : '.'}</Empty>
        )}
      </Section>
      <MethodSection
        command={method?.command ?? null}
        metricNames={metricNames}
        metrics={method?.metrics ?? null}
        exitCode={method?.exitCode ?? null}
        error={method?.error ?? null}
        result={records?.result ?? null}
      />
      <Section title="Criteria">
        {outcome ? (
          <CriteriaTable criteria={outcome.criteria} />
        ) : (
          <Empty>{prereg ? 'Each criterion is read once the method has measured.' : 'No criteria yet.'}</Empty>
        )}
      </Section>
      <DecisionSection facts={decisionFactsOf(outcome, view.experiment?.decision ?? null, records?.decision ?? null)} />
      <ReviewSection summary={outcome?.summary ?? interpretation?.summary ?? null} caveats={interpretation?.caveats ?? []} review={outcome?.review ?? records?.review?.body ?? null} />
    </>
  );
}
