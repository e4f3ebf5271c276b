import { useState, type FormEvent } from 'react';
import type { RunDetail } from '../lib/api-types';
import { canApprove, useApp } from './app-context';
import { actError, Outcome } from './act-outcome';
import { ScrollPre } from './scroll-pre';
import { PreregistrationView } from './experiment-prereg';
import { isPreregistration } from '../lib/experiments';

/** A criterion as the form holds it: `id` for a locked one (kept, reworded or dropped), none for one added here. */
interface CriterionRow {
  key: number;
  id: string | null;
  text: string;
}

type Criterion = { id: string; text: string };

interface MergeSubject {
  branch?: string;
  into?: string;
  strategy?: string;
  commit?: string;
  diffstat?: { path: string; added: number | null; deleted: number | null }[];
  tests?: { label: string; passed: number; failed: number; errors: number; exit_code: number } | null;
  synthesis?: { label: string; verdict: string } | null;
  solved?: { check: string; ok: boolean; evidence: string }[];
}

/**
 * The edits an approval sends: the criteria as the form holds them, or none when they are the
 * locked ones unchanged (the api then keeps them as locked, and the log records no edit).
 */
export function criteriaEdits(locked: Criterion[], rows: { id: string | null; text: string }[]): { criteria: { id?: string; text: string }[] } | undefined {
  const kept = rows.map((r) => ({ id: r.id, text: r.text.trim() })).filter((r) => r.text !== '' || r.id !== null);
  const same = kept.length === locked.length && kept.every((r, i) => r.id === locked[i].id && r.text === locked[i].text);
  if (same) return undefined;
  return { criteria: kept.filter((r) => r.text !== '').map((r) => (r.id ? { id: r.id, text: r.text } : { text: r.text })) };
}

function Diffstat({ entries }: { entries: MergeSubject['diffstat'] }) {
  const files = entries ?? [];
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const deleted = files.reduce((n, f) => n + (f.deleted ?? 0), 0);
  return (
    <>
      <span>
        {files.length} file{files.length === 1 ? '' : 's'}, <span className="add">+{added}</span> <span className="del">−{deleted}</span>
      </span>
      <ul className="files">
        {files.map((f) => (
          <li key={f.path}>
            <span className="mono">{f.path}</span> <span className="add">+{f.added ?? '?'}</span> <span className="del">−{f.deleted ?? '?'}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** What an approver looks at before a merge: where it goes, what it changes, and why the run says it is solved. */
function MergeFacts({ subject, solved, runId }: { subject: MergeSubject; solved: MergeSubject['solved']; runId: string }) {
  const { api } = useApp();
  const [diff, setDiff] = useState<string | null>(null);
  const [diffError, setDiffError] = useState<string | null>(null);
  const checks = solved ?? subject.solved ?? [];
  // The page's Diff section loads only once the run ends; at the gate the diff is fetched on request.
  const loadDiff = () => {
    if (diff !== null) return;
    api.diff(runId).then(setDiff, (e: unknown) => setDiffError(actError(e)));
  };
  return (
    <div className="merge-facts" data-testid="merge-facts">
      <dl className="gate-facts">
        <div>
          <dt>Branch</dt>
          <dd className="mono">{subject.branch ?? '—'}</dd>
        </div>
        <div>
          <dt>Into</dt>
          <dd className="mono">
            {subject.into ?? '—'} ({subject.strategy ?? '—'})
          </dd>
        </div>
        <div>
          <dt>Diffstat</dt>
          <dd data-testid="merge-diffstat">
            <Diffstat entries={subject.diffstat} />
          </dd>
        </div>
        <div>
          <dt>Tests</dt>
          <dd data-testid="merge-tests">
            {subject.tests ? `${subject.tests.label}: ${subject.tests.passed} passed, ${subject.tests.failed} failed, ${subject.tests.errors} errors (exit ${subject.tests.exit_code})` : 'no test run'}
          </dd>
        </div>
        <div>
          <dt>Synthesis</dt>
          <dd>{subject.synthesis ? `${subject.synthesis.label}: ${subject.synthesis.verdict}` : 'none'}</dd>
        </div>
      </dl>
      <h4>Solved</h4>
      <ul className="solved" aria-label="Solved checks">
        {checks.map((c) => (
          <li key={c.check} data-check={c.check}>
            <span className={c.ok ? 'badge good' : 'badge bad'}>{c.ok ? 'ok' : 'not ok'}</span> <span className="mono">{c.check}</span>
            <div className="muted small">{c.evidence}</div>
          </li>
        ))}
      </ul>
      <details onToggle={(e) => (e.currentTarget.open ? loadDiff() : undefined)}>
        <summary>The diff</summary>
        {diffError ? <p className="error">{diffError}</p> : diff === null ? <p className="muted">Loading…</p> : <ScrollPre className="code">{diff}</ScrollPre>}
      </details>
    </div>
  );
}

/** A subject key's name as a label: draft_from as "Draft from". */
const keyLabel = (key: string) => key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');

/**
 * What an approver looks at at a gate the form has no fields for: a `preregistration` in the
 * subject readably (the draft a person locks or refuses), and the subject's other text as it is.
 */
export function SubjectFacts({ subject }: { subject: Record<string, unknown> }) {
  const prereg = isPreregistration(subject.preregistration) ? subject.preregistration : null;
  const texts = Object.entries(subject).filter(([k, v]) => k !== 'preregistration' && (typeof v === 'string' || typeof v === 'number') && v !== '');
  return (
    <div className="subject-facts" data-testid="gate-subject">
      {texts.length > 0 && (
        <dl className="worksheet">
          {texts.map(([k, v]) => (
            <div key={k} className="worksheet-row">
              <dt>{keyLabel(k)}</dt>
              <dd className="prose">{String(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {prereg && (
        <>
          <h4>Preregistration, as drafted</h4>
          <PreregistrationView prereg={prereg} idPrefix="gate-prereg" />
        </>
      )}
    </div>
  );
}

/**
 * The decision at the gate a run waits at (issue 21): the criteria, editable, at the criteria
 * gate; what the merge would do at the merge gate. A token without the approve role sees the gate
 * and is told what it needs: the api would answer its click 403.
 */
export function ApprovalForm({ runId, gate, detail, onActed }: { runId: string; gate: { name: string; subject: Record<string, unknown> }; detail: RunDetail | null; onActed: (said: string) => void }) {
  const { api, me } = useApp();
  const locked = gate.name === 'criteria' ? ((gate.subject.criteria as Criterion[] | undefined) ?? []) : [];
  const [rows, setRows] = useState<CriterionRow[]>(() => locked.map((c, i) => ({ key: i, id: c.id, text: c.text })));
  const [nextKey, setNextKey] = useState(locked.length);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const allowed = canApprove(me);

  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      const edits = gate.name === 'criteria' && decision === 'approve' ? criteriaEdits(locked, rows) : undefined;
      await api.approve(runId, { gate: gate.name, decision, ...(note.trim() ? { note: note.trim() } : {}), ...(edits ? { edits } : {}) });
      onActed(decision === 'approve' ? `Approved at the ${gate.name} gate: the run goes on.` : `Refused at the ${gate.name} gate.`);
    } catch (err) {
      setError(actError(err));
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void decide('approve');
  };

  return (
    <form onSubmit={submit} className="act-form wide" aria-label={`Approval at the ${gate.name} gate`}>
      <div>
        <p>
          Waits at the <strong>{gate.name}</strong> gate
          {gate.name === 'criteria' ? ': the locked acceptance criteria, before any code is written.' : gate.name === 'merge' ? ': the merge of the run branch.' : ': what it asks to approve is below.'}
        </p>
        {gate.name === 'criteria' && (
          <fieldset>
            <legend>Acceptance criteria</legend>
            {rows.map((r, i) => (
              <div className="field criterion-row" key={r.key}>
                <label htmlFor={`criterion-${r.key}`}>{r.id ?? `New criterion ${i + 1}`}</label>
                <div className="criterion-edit">
                  <input id={`criterion-${r.key}`} value={r.text} readOnly={!allowed} onChange={(e) => setRows((rs) => rs.map((x) => (x.key === r.key ? { ...x, text: e.target.value } : x)))} />
                  {allowed && (
                    <button type="button" className="secondary small" aria-label={`Drop ${r.id ?? `new criterion ${i + 1}`}`} onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}>
                      Drop
                    </button>
                  )}
                </div>
              </div>
            ))}
            {allowed && (
              <button
                type="button"
                className="secondary small"
                onClick={() => {
                  setRows((rs) => [...rs, { key: nextKey, id: null, text: '' }]);
                  setNextKey((k) => k + 1);
                }}
              >
                Add a criterion
              </button>
            )}
          </fieldset>
        )}
        {gate.name === 'merge' && <MergeFacts subject={gate.subject as MergeSubject} solved={detail?.solved} runId={runId} />}
        {gate.name !== 'merge' && gate.name !== 'criteria' && <SubjectFacts subject={gate.subject} />}
      </div>
      {allowed ? (
        <div className="act-submit">
          <div className="field">
            <label htmlFor={`approval-note-${gate.name}`}>Note (optional)</label>
            <textarea id={`approval-note-${gate.name}`} rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
          </div>
          <div className="actions">
            <button type="submit" disabled={busy}>
              Approve
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void decide('reject')}>
              Reject
            </button>
          </div>
          <Outcome error={error} />
        </div>
      ) : (
        <p className="muted act-submit" data-testid="approve-role-needed">
          Approving or refusing at a gate needs a token with the approve role; this token is {me?.role ?? 'unknown'}.
        </p>
      )}
    </form>
  );
}
