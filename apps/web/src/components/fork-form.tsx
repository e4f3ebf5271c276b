import type { RunView } from '@roundtable/run-view';
import { useState, type FormEvent } from 'react';
import { forkBody, forkStages } from '../lib/fork-request';
import type { FormIssues } from '../lib/act-requests';
import type { RunDetail } from '../lib/api-types';
import { actError, Outcome } from './act-outcome';
import { useApp } from './app-context';

function Issue({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <span id={id} className="error small">
      {text}
    </span>
  ) : null;
}

/**
 * "Run again from <stage>" with edited inputs (POST /v1/runs/:id/fork): the stages the run made
 * calls at, its objective and requirements to edit (when its workflow offers them), and more edits
 * as YAML. The new run opens once the api has queued it; its page links back here.
 */
export function ForkForm({ runId, view, detail, editInputs }: { runId: string; view: RunView; detail: RunDetail | null; editInputs: boolean }) {
  const { api, navigate } = useApp();
  const stages = forkStages(view.calls);
  const inputs = detail?.inputs ?? null;
  const [from, setFrom] = useState(stages[1] ?? stages[0] ?? '');
  const [objective, setObjective] = useState(inputs?.objective ?? '');
  const [requirements, setRequirements] = useState((inputs?.requirements ?? []).join('\n'));
  const [more, setMore] = useState('');
  const [issues, setIssues] = useState<FormIssues>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const offerInputs = editInputs && inputs !== null;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const built = forkBody({ from, more, ...(offerInputs ? { objective, requirements } : {}) }, inputs);
    if (!built.ok) return setIssues(built.issues);
    setIssues({});
    setBusy(true);
    try {
      const fork = await api.fork(runId, built.body);
      navigate(`/runs/${encodeURIComponent(fork.id)}`);
    } catch (err) {
      setError(actError(err));
      setBusy(false);
    }
  };
  const described = (field: string) => (issues[field] ? { 'aria-invalid': true as const, 'aria-describedby': `fork-${field}-issue` } : {});
  return (
    <form onSubmit={submit} className="act-form wide" aria-label="Fork">
      <p className="muted">A new run: the calls this run made before the stage are copied (not asked or billed again), the rest run live with your edits.</p>
      <div className="field" data-field="from">
        <label htmlFor="fork-from">Run again from</label>
        <select id="fork-from" value={from} onChange={(e) => setFrom(e.target.value)} {...described('from')}>
          {stages.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <Issue id="fork-from-issue" text={issues.from} />
      </div>
      {offerInputs && (
        <>
          <div className="field" data-field="objective">
            <label htmlFor="fork-objective">Objective</label>
            <textarea id="fork-objective" rows={2} value={objective} onChange={(e) => setObjective(e.target.value)} {...described('objective')} />
            <Issue id="fork-objective-issue" text={issues.objective} />
          </div>
          <div className="field" data-field="requirements">
            <label htmlFor="fork-requirements">Requirements (one a line)</label>
            <textarea id="fork-requirements" rows={4} value={requirements} onChange={(e) => setRequirements(e.target.value)} {...described('requirements')} />
            <Issue id="fork-requirements-issue" text={issues.requirements} />
          </div>
        </>
      )}
      <div className="field" data-field="more">
        <label htmlFor="fork-more">More edits (YAML, a part of the project file)</label>
        <textarea id="fork-more" rows={3} value={more} placeholder={'agents:\n  critic: { model: grok-4-fast }'} onChange={(e) => setMore(e.target.value)} {...described('more')} />
        <Issue id="fork-more-issue" text={issues.more} />
      </div>
      <div className="act-submit">
        <button type="submit" disabled={busy || stages.length === 0}>
          Fork run
        </button>
        <Outcome error={error} />
      </div>
    </form>
  );
}
