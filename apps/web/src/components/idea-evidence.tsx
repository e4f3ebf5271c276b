import { useState, type FormEvent } from 'react';
import { ApiHttpError } from '../lib/api-client';
import type { EvidenceEntry, EvidenceKind } from '../lib/api-types';
import { EMPTY_EVIDENCE_FORM, evidenceBodyOf, fieldIssuesOf, type EvidenceForm, type FieldIssues } from '../lib/ideas';
import { actError, Outcome } from './act-outcome';
import { canAct, useApp } from './app-context';
import { experimentPath, runPath } from '../lib/route';
import { FieldIssue, GeneralIssues } from './idea-worksheet-fields';
import { Link } from './link';
import { Section } from './section';
import { errorText, useAsync } from './use-async';

/**
 * The kinds the api takes, each with its label. Only types cross into the bundle (no contracts
 * code), so the contracts' EVIDENCE_KINDS is held here as a Record over its type: a kind added
 * there and not here fails the type-check.
 */
const KIND_LABELS: Record<EvidenceKind, string> = { interview: 'interview', metric: 'metric', document: 'document', experiment_result: 'experiment result' };
const KINDS = Object.keys(KIND_LABELS) as EvidenceKind[];
const NO_ISSUES: FieldIssues = { byField: {}, general: [] };
const FIELDS = ['claim', 'source', 'kind', 'date', 'supersedes'];

/** The evidence ledger (GET/POST /v1/ideas/:id/evidence): append-only, a correction supersedes an entry, which stays listed and marked. */
export function IdeaEvidence({ ideaId, generation, onLogged }: { ideaId: string; generation: number; onLogged: () => void }) {
  const { api, me } = useApp();
  const ledger = useAsync(() => api.evidence(ideaId), `${ideaId}|${generation}`);
  return (
    <Section title="Evidence ledger">
      {ledger.state === 'loading' && <p className="muted">Loading the ledger…</p>}
      {ledger.state === 'error' && (
        <p role="alert" className="error">
          Could not load the ledger: {errorText(ledger.error)}
        </p>
      )}
      {ledger.state === 'ok' &&
        (ledger.value.length === 0 ? (
          <p className="muted">No entries yet.</p>
        ) : (
          <ul className="ledger">
            {ledger.value.map((e) => (
              <Entry key={e.id} e={e} />
            ))}
          </ul>
        ))}
      {canAct(me) && <LogForm ideaId={ideaId} ids={ledger.state === 'ok' ? ledger.value.map((e) => e.id) : []} onLogged={onLogged} />}
    </Section>
  );
}

function Entry({ e }: { e: EvidenceEntry }) {
  return (
    <li data-testid="evidence-entry" data-id={e.id} className={e.superseded_by ? 'superseded' : undefined}>
      <strong className="mono">{e.id}</strong> <span className="badge" data-kind={e.kind}>{KIND_LABELS[e.kind] ?? e.kind}</span> <time dateTime={e.date}>{e.date}</time>
      {e.superseded_by && (
        <>
          {' '}
          <span className="badge bad" data-testid="superseded">
            superseded by {e.superseded_by}
          </span>
        </>
      )}
      {e.supersedes && <span className="muted small"> (corrects {e.supersedes})</span>}
      <p className="claim">{e.claim}</p>
      <p className="muted small">
        <Source source={e.source} /> · logged by {e.logged_by}
      </p>
    </li>
  );
}

/** An experiment's decision names its experiment and run (`experiment ID (run RUN)`): both linked; any other source as written. */
function Source({ source }: { source: string }) {
  const m = /^experiment (\S+) \(run (\S+)\)$/.exec(source);
  if (!m) return <>{source}</>;
  return (
    <>
      experiment{' '}
      <Link to={experimentPath(m[1])} className="mono">
        {m[1]}
      </Link>{' '}
      (run{' '}
      <Link to={runPath(m[2])} className="mono">
        {m[2]}
      </Link>
      )
    </>
  );
}

function LogForm({ ideaId, ids, onLogged }: { ideaId: string; ids: string[]; onLogged: () => void }) {
  const { api } = useApp();
  const [form, setForm] = useState<EvidenceForm>(EMPTY_EVIDENCE_FORM);
  const [issues, setIssues] = useState<FieldIssues>(NO_ISSUES);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    setError(null);
    setIssues(NO_ISSUES);
    setBusy(true);
    try {
      await api.logEvidence(ideaId, evidenceBodyOf(form));
      setForm(EMPTY_EVIDENCE_FORM);
      setBusy(false);
      onLogged();
    } catch (err) {
      if (err instanceof ApiHttpError && err.status === 400 && err.body?.issues?.length) setIssues(fieldIssuesOf(err.body, FIELDS));
      setError(actError(err));
      setBusy(false);
    }
  };
  const described = (f: string) => (issues.byField[f]?.length ? { 'aria-invalid': true as const, 'aria-describedby': `evidence-${f}-issue` } : {});
  const set = (f: keyof EvidenceForm) => (e: { target: { value: string } }) => setForm({ ...form, [f]: e.target.value });
  return (
    <form onSubmit={submit} aria-label="Log evidence" className="worksheet-form">
      <h3 className="wide-row">Log an entry</h3>
      <div className="field" data-field="claim">
        <label htmlFor="evidence-claim">Claim</label>
        <textarea id="evidence-claim" rows={2} value={form.claim} onChange={set('claim')} {...described('claim')} />
        <FieldIssue id="evidence-claim-issue" messages={issues.byField.claim} />
      </div>
      <div className="field" data-field="source">
        <label htmlFor="evidence-source">Source</label>
        <input id="evidence-source" type="text" className="wide-input" value={form.source} onChange={set('source')} {...described('source')} />
        <FieldIssue id="evidence-source-issue" messages={issues.byField.source} />
      </div>
      <div className="field" data-field="kind">
        <label htmlFor="evidence-kind">Kind</label>
        <select id="evidence-kind" value={form.kind} onChange={set('kind')} {...described('kind')}>
          <option value="">Choose…</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
        <FieldIssue id="evidence-kind-issue" messages={issues.byField.kind} />
      </div>
      <div className="field" data-field="date">
        <label htmlFor="evidence-date">Date</label>
        <input id="evidence-date" type="date" value={form.date} onChange={set('date')} {...described('date')} />
        <FieldIssue id="evidence-date-issue" messages={issues.byField.date} />
      </div>
      <div className="field" data-field="supersedes">
        <label htmlFor="evidence-supersedes">Supersedes</label>
        <select id="evidence-supersedes" value={form.supersedes} onChange={set('supersedes')} {...described('supersedes')}>
          <option value="">nothing (a new finding)</option>
          {ids.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
        <FieldIssue id="evidence-supersedes-issue" messages={issues.byField.supersedes} />
      </div>
      <div className="act-submit">
        <GeneralIssues messages={issues.general} />
        <button type="submit" disabled={busy}>
          Log entry
        </button>
        <Outcome error={error} />
      </div>
    </form>
  );
}
