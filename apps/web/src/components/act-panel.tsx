import type { JudgeRole } from '@roundtable/contracts';
import { JUDGE_ORDER, type RunView } from '@roundtable/run-view';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { actStatusOf, offersAppeal, offersCancel, offersResume } from '../lib/act-offers';
import { appealBody, CAP_FIELDS, resumeBody, type CapName, type FormIssues } from '../lib/act-requests';
import type { RunCaps, RunDetail } from '../lib/api-types';
import { actError, Outcome } from './act-outcome';
import { AnswerForm } from './answer-form';
import { canAct, useApp } from './app-context';
import { ApprovalForm } from './approval-form';
import { ForkForm } from './fork-form';
import { offersFork } from '../lib/fork-request';
import { JUDGE_NAMES } from './panel-sections';
import { Section } from './section';
import { workflowOfRun, type WebWorkflow } from '../workflows';

function CapInputs({ prefix, values, caps, issues, onChange, only }: { prefix: string; values: Partial<Record<CapName, string>>; caps: RunCaps | undefined; issues: FormIssues; onChange: (name: CapName, v: string) => void; only?: readonly CapName[] }) {
  return (
    <fieldset className="caps">
      <legend>Raise caps (leave blank to keep)</legend>
      {CAP_FIELDS.filter((f) => !only || only.includes(f.name)).map((f) => {
        const id = `${prefix}-${f.name}`;
        const issue = issues[`caps.${f.name}`];
        const current = caps?.[f.name];
        return (
          <div className="field" key={f.name} data-field={`caps.${f.name}`}>
            <label htmlFor={id}>{f.label}</label>
            <input id={id} inputMode="decimal" value={values[f.name] ?? ''} placeholder={current === null || current === undefined ? 'no cap' : `now ${current}`} onChange={(e) => onChange(f.name, e.target.value)} aria-invalid={issue ? true : undefined} aria-describedby={issue ? `${id}-issue` : undefined} />
            {issue && (
              <span id={`${id}-issue`} className="error small">
                {issue}
              </span>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

/** The resume of a workflow that has one: its caps to raise, and the stages it may restart from. */
function ResumeForm({ runId, workflow, detail, onActed }: { runId: string; workflow: WebWorkflow; detail: RunDetail | null; onActed: (said: string) => void }) {
  const fromStages = workflow.resume?.fromStages ?? null;
  const { api } = useApp();
  const [caps, setCaps] = useState<Partial<Record<CapName, string>>>({});
  const [from, setFrom] = useState('');
  const [issues, setIssues] = useState<FormIssues>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const built = resumeBody({ from, caps });
    setError(null);
    if (!built.ok) return setIssues(built.issues);
    setIssues({});
    setBusy(true);
    try {
      await api.resume(runId, built.body);
      setCaps({});
      onActed('Resume requested: the run picks up where it stopped.');
    } catch (err) {
      setError(actError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="act-form" aria-label="Resume">
      <CapInputs prefix="resume" values={caps} caps={detail?.caps} issues={issues} onChange={(n, v) => setCaps((c) => ({ ...c, [n]: v }))} only={workflow.caps} />
      {fromStages && (
        <div className="field">
          <label htmlFor="resume-from">From stage</label>
          <select id="resume-from" value={from} onChange={(e) => setFrom(e.target.value)}>
            <option value="">where it stopped</option>
            {fromStages.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      )}
      <button type="submit" disabled={busy}>
        Resume run
      </button>
      <Outcome error={error} />
    </form>
  );
}

function AppealForm({ runId, workflow, detail, onActed }: { runId: string; workflow: WebWorkflow; detail: RunDetail | null; onActed: (said: string) => void }) {
  const { api } = useApp();
  const [evidence, setEvidence] = useState('');
  const [judges, setJudges] = useState<JudgeRole[]>([]);
  const [caps, setCaps] = useState<Partial<Record<CapName, string>>>({});
  const [issues, setIssues] = useState<FormIssues>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const canAppeal = detail?.panel?.can_appeal;
  const toggle = (j: JudgeRole) => setJudges((js) => (js.includes(j) ? js.filter((x) => x !== j) : JUDGE_ORDER.filter((x) => x === j || js.includes(x))));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const built = appealBody({ evidence, judges, caps });
    if (!built.ok) return setIssues(built.issues);
    setIssues({});
    setBusy(true);
    try {
      await api.appeal(runId, built.body);
      setEvidence('');
      onActed(`Appeal requested: ${judges.map((j) => JUDGE_NAMES[j]).join(', ')} re-score with the new evidence.`);
    } catch (err) {
      setError(actError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="act-form wide" aria-label="Appeal the panel">
      <div>
      {typeof canAppeal === 'string' && <p className="muted">The api says: {canAppeal}</p>}
      <div className="field" data-field="evidence">
        <label htmlFor="appeal-evidence">Evidence (one item a line)</label>
        <textarea id="appeal-evidence" rows={4} value={evidence} onChange={(e) => setEvidence(e.target.value)} aria-invalid={issues.evidence ? true : undefined} aria-describedby={issues.evidence ? 'appeal-evidence-issue' : undefined} />
        {issues.evidence && (
          <span id="appeal-evidence-issue" className="error small">
            {issues.evidence}
          </span>
        )}
      </div>
      <fieldset data-field="judges" aria-describedby={issues.judges ? 'appeal-judges-issue' : undefined}>
        <legend>Judges who re-score</legend>
        <div className="checks-row">
          {JUDGE_ORDER.map((j) => (
            <label key={j} className="check">
              <input type="checkbox" checked={judges.includes(j)} onChange={() => toggle(j)} /> {JUDGE_NAMES[j]}
            </label>
          ))}
        </div>
        {issues.judges && (
          <span id="appeal-judges-issue" className="error small">
            {issues.judges}
          </span>
        )}
      </fieldset>
      </div>
      <CapInputs prefix="appeal" values={caps} caps={detail?.caps} issues={issues} onChange={(n, v) => setCaps((c) => ({ ...c, [n]: v }))} only={workflow.caps} />
      <div className="act-submit">
        <button type="submit" disabled={busy}>
          Appeal
        </button>
        <Outcome error={error} />
      </div>
    </form>
  );
}

/**
 * Cancel asks first, in the page (not window.confirm: a screen reader and a test see it): "Cancel
 * run" shows the question with "Yes, cancel the run" and "Keep it running"; only the yes posts.
 */
function CancelButton({ runId, onActed }: { runId: string; onActed: (said: string) => void }) {
  const { api } = useApp();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const ask = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  // Focus follows the question: to the safe answer when it opens, back to Cancel run when it closes.
  useEffect(() => {
    if (confirming) keep.current?.focus();
    else if (asked.current) ask.current?.focus();
    asked.current = confirming;
  }, [confirming]);
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.cancel(runId);
      setConfirming(false);
      onActed('Cancel requested: calls in flight finish, nothing new starts.');
    } catch (err) {
      setError(actError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="act-form">
      {confirming ? (
        <div role="group" aria-labelledby="cancel-question">
          <p id="cancel-question">Cancel this run? Calls in flight finish; nothing new starts, and a cancelled run cannot be resumed.</p>
          <div className="actions">
            <button type="button" className="danger" onClick={cancel} disabled={busy}>
              Yes, cancel the run
            </button>
            <button type="button" className="secondary" ref={keep} onClick={() => setConfirming(false)} disabled={busy}>
              Keep it running
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="danger" ref={ask} onClick={() => { setError(null); setConfirming(true); }}>
          Cancel run
        </button>
      )}
      <Outcome error={error} />
    </div>
  );
}

/** An act the run page offers: shown when `when` holds for the run as folded. */
interface Act {
  key: string;
  title: string;
  /** Takes the panel's whole width (a form with several parts). */
  wide?: boolean;
  /** Given the run's status (the stream's, else the detail's: lib/act-offers.ts). */
  when: (status: string) => boolean;
  render: () => ReactNode;
}

/**
 * The acts on a run (write tokens and an open api only; the page leaves this out otherwise). Each
 * act is an entry of ACTS below, shown when the run's state allows it, so approve, reject and
 * answer join as entries without touching the rest of the page.
 */
export function ActPanel({ runId, view, detail, onActed }: { runId: string; view: RunView; detail: RunDetail | null; onActed: (said: string) => void }) {
  // Resume and appeal are the workflow's (the web registry, apps/web/src/workflows/): offered
  // only where the api accepts them, so a click is never a predictable 409.
  const workflow = workflowOfRun(view);
  const { me } = useApp();
  // The gate as the stream says it (at once), else as the detail says it (a page opened at the gate).
  const gate = view.people.gate ?? detail?.gate ?? null;
  const openQuestions = (detail?.open_questions ?? []).filter((q) => q.status === 'open');
  const status = actStatusOf(view.status, detail?.status);
  const appealUsed = { appealsStarted: view.panel?.appeals.length ?? 0, detailAppeal: detail?.panel?.appeal };
  const acts: Act[] = [
    ...(gate
      ? [{ key: `approve-${gate.name}`, title: `Approve or reject: ${gate.name} gate`, wide: true, when: (st: string) => st === 'awaiting_approval', render: () => <ApprovalForm key={gate.name} runId={runId} gate={gate} detail={detail} onActed={onActed} /> }]
      : []),
    ...openQuestions.map((q) => ({ key: `answer-${q.id}`, title: `Answer ${q.id}`, when: () => canAct(me), render: () => <AnswerForm runId={runId} question={q} onActed={onActed} /> })),
    { key: 'cancel', title: 'Cancel', when: offersCancel, render: () => <CancelButton runId={runId} onActed={onActed} /> },
    ...(workflow?.resume
      ? [{ key: 'resume', title: 'Resume', when: (st: string) => offersResume(workflow.resume?.statuses, st), render: () => <ResumeForm runId={runId} workflow={workflow} detail={detail} onActed={onActed} /> }]
      : []),
    ...(workflow?.appeal
      ? [{ key: 'appeal', title: 'Appeal the panel', wide: true, when: (st: string) => offersAppeal(st, appealUsed), render: () => <AppealForm runId={runId} workflow={workflow} detail={detail} onActed={onActed} /> }]
      : []),
    { key: 'fork', title: 'Fork: run again from a stage', wide: true, when: (s) => offersFork(s) && (workflow?.fork ?? true), render: () => <ForkForm runId={runId} view={view} detail={detail} editInputs={workflow?.forkEditsInputs ?? false} /> },
  ];
  const shown = acts.filter((a) => a.when(status));
  return (
    <Section title="Act" className="act">
      {shown.length === 0 && <p className="muted">Nothing to do on a run that is {status}.</p>}
      <div className="acts" data-slot="acts">
        {shown.map((a) => (
          <div key={a.key} className={a.wide ? 'act-item wide' : 'act-item'} data-act={a.key}>
            <h3>{a.title}</h3>
            {a.render()}
          </div>
        ))}
      </div>
    </Section>
  );
}
