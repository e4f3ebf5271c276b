import { useState, type FormEvent } from 'react';
import type { ExperimentStarted, IdeaDetail } from '../lib/api-types';
import { EXPERIMENT_TEMPLATE, experimentCandidates, ideaExperimentBody } from '../lib/ideas-experiment';
import { experimentPath, runPath } from '../lib/route';
import { actError, Outcome } from './act-outcome';
import { useApp } from './app-context';
import { Link } from './link';
import { PanelPicker } from './panel-picker';
import { Section } from './section';
import { useAsync } from './use-async';

/**
 * Draft the experiment (issue 24): a done panel's recommended experiment — an ITERATE's, first —
 * as a drafted experiment whose run's proposer writes the preregistration and then waits at the
 * "preregistration" gate for a person's approval; once run and decided, the decision is logged to
 * this idea's evidence ledger. The experiment's settings are the person's (YAML, prefilled from
 * the backtest example without its preregistration).
 */
export function IdeaExperiment({ idea, canAct }: { idea: IdeaDetail; canAct: boolean }) {
  const { api } = useApp();
  const candidates = experimentCandidates(idea.memory);
  const [open, setOpen] = useState(false);
  const [panel, setPanel] = useState(candidates[0]?.run_id ?? '');
  const [text, setText] = useState(EXPERIMENT_TEMPLATE);
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [started, setStarted] = useState<ExperimentStarted | null>(null);
  // An idea's experiments are filed under the idea as their project (the api sets it so).
  const drafted = useAsync(() => api.experiments({ idea: idea.id }), `${idea.id}|${started?.experiment_id ?? ''}`);
  const listed = drafted.state === 'ok' ? drafted.value : [];
  if (!canAct && listed.length === 0) return null;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const built = ideaExperimentBody(panel, text);
    if (!built.ok) return setIssues(built.issues);
    setIssues({});
    setBusy(true);
    try {
      setStarted(await api.ideaExperiment(idea.id, built.body));
      setOpen(false);
    } catch (err) {
      setError(actError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Experiment">
      {listed.length > 0 && (
        <ul data-testid="idea-experiments">
          {listed.map((x) => (
            <li key={x.id} data-testid="idea-experiment" data-experiment={x.id}>
              <Link to={experimentPath(x.id)} className="mono">
                {x.id}
              </Link>{' '}
              {x.title ?? '(preregistration not drafted yet)'} — {x.status}
              {x.decision ? `, ${x.decision}` : ''}
              {x.run_id && (
                <>
                  {' '}
                  (run{' '}
                  <Link to={runPath(x.run_id)} className="mono">
                    {x.run_id}
                  </Link>
                  )
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {started && (
        <div data-testid="experiment-drafted" role="status">
          <p>
            Drafted experiment{' '}
            <Link to={experimentPath(started.experiment_id)} className="mono">
              {started.experiment_id}
            </Link>
            ; its run{' '}
            <Link to={runPath(started.run_id)} className="mono">
              {started.run_id}
            </Link>{' '}
            drafts the preregistration and waits at the <strong>preregistration</strong> gate: read the draft and approve it on the run page. Its decision is logged to this idea's evidence ledger.
          </p>
        </div>
      )}
      {!canAct ? null : candidates.length === 0 ? (
        <p className="muted">No panel on this idea is done yet: there is no recommended experiment to draft.</p>
      ) : !open ? (
        <button type="button" aria-expanded={false} aria-controls="idea-experiment-form" onClick={() => setOpen(true)}>
          Draft the experiment
        </button>
      ) : (
        <form id="idea-experiment-form" onSubmit={submit} className="act-form wide" aria-label="Draft the experiment" noValidate>
          <p className="muted">
            The panel's recommended experiment becomes a draft: the run's proposer writes its preregistration (hypothesis, method, criteria), pinned to the repository's HEAD, and the run waits for a person to approve it at its gate before anything runs.
          </p>
          <PanelPicker id="experiment-panel" panels={candidates} value={panel} onChange={setPanel} />
          <div className="field" data-field="file">
            <label htmlFor="experiment-file">Experiment settings (YAML: repo, providers, proposer, interpreter, critic, budget, domain)</label>
            <textarea id="experiment-file" rows={12} value={text} onChange={(e) => {
                setText(e.target.value);
                setError(null);
              }} aria-invalid={issues.file ? true : undefined} aria-describedby={issues.file ? 'experiment-file-issue' : undefined} spellCheck={false} />
            {issues.file && (
              <span id="experiment-file-issue" className="error small">
                {issues.file}
              </span>
            )}
          </div>
          <div className="act-submit">
            <button type="submit" disabled={busy}>
              Draft and start its run
            </button>{' '}
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <Outcome error={error} />
          </div>
        </form>
      )}
    </Section>
  );
}
