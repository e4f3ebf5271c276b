import { useState, type FormEvent } from 'react';
import type { IdeaDetail } from '../lib/api-types';
import { handoffBody, handoffBuildTemplate, handoffCandidates } from '../lib/ideas-handoff';
import { runPath } from '../lib/route';
import { judgesIdeas } from '../workflows';
import { actError, Outcome } from './act-outcome';
import { useApp } from './app-context';
import { Link } from './link';
import { PanelPicker } from './panel-picker';
import { Section } from './section';
import { errorText, useAsync } from './use-async';

/**
 * Hand on (issue 23): a done panel's GO — or an ITERATE's recommended experiment — as a build run
 * whose objective and requirements the api writes from the panel's synthesis; the build's settings
 * are the person's (YAML, prefilled from the shipped build example). Lists the builds handed on.
 */
export function IdeaHandoff({ idea, canAct }: { idea: IdeaDetail; canAct: boolean }) {
  const { api, navigate } = useApp();
  const candidates = handoffCandidates(idea.memory);
  const examples = useAsync(() => api.examples(), 'examples');
  const [panel, setPanel] = useState(candidates[0]?.run_id ?? '');
  const [build, setBuild] = useState<string | null>(null);
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const template = examples.state === 'ok' ? handoffBuildTemplate(examples.value, judgesIdeas) : '';
  const text = build ?? template;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const built = handoffBody(panel, text);
    if (!built.ok) return setIssues(built.issues);
    setIssues({});
    setBusy(true);
    try {
      const run = await api.handoff(idea.id, built.body);
      navigate(runPath(run.id));
    } catch (err) {
      setError(actError(err));
      setBusy(false);
    }
  };
  return (
    <Section title="Hand on">
      {idea.handoffs.length > 0 && (
        <ul data-testid="idea-handoffs">
          {idea.handoffs.map((h) => (
            <li key={h.run_id}>
              <Link to={runPath(h.run_id)} className="mono">
                {h.run_id}
              </Link>{' '}
              ({h.status}) from version {h.version}, panel {h.panel_run_id} ({h.recommendation})
            </li>
          ))}
        </ul>
      )}
      {candidates.length === 0 ? (
        <p className="muted">No done panel on this idea said GO or ITERATE yet: there is nothing to hand on.</p>
      ) : !canAct ? null : (
        <form onSubmit={submit} className="act-form wide" aria-label="Hand on as a build">
          <p className="muted">A build run whose objective and requirements come from the panel's synthesis (a GO builds the solution, an ITERATE its recommended experiment); its report links back here.</p>
          <PanelPicker id="handoff-panel" panels={candidates} value={panel} onChange={setPanel} />
          <div className="field" data-field="build">
            <label htmlFor="handoff-build">Build settings (YAML: providers, agents, budget, tests)</label>
            {examples.state === 'error' && <p className="error small">Could not load the build example: {errorText(examples.error)}</p>}
            <textarea id="handoff-build" rows={8} value={text} onChange={(e) => setBuild(e.target.value)} aria-invalid={issues.build ? true : undefined} aria-describedby={issues.build ? 'handoff-build-issue' : undefined} />
            {issues.build && (
              <span id="handoff-build-issue" className="error small">
                {issues.build}
              </span>
            )}
          </div>
          <div className="act-submit">
            <button type="submit" disabled={busy}>
              Hand on as a build
            </button>
            <Outcome error={error} />
          </div>
        </form>
      )}
    </Section>
  );
}
