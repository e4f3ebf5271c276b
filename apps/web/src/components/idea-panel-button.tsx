import { useState } from 'react';
import { ApiHttpError } from '../lib/api-client';
import { projectSlugOf } from '../lib/ideas';
import { ideaPanelExampleOf, ideaPanelProjectOf } from '../lib/ideas-panel';
import { runPath } from '../lib/route';
import { judgesIdeas } from '../workflows';
import { actError, Outcome } from './act-outcome';
import { useApp } from './app-context';
import { errorText, useAsync } from './use-async';

/**
 * "Run a panel on this version": the shipped panel example's project file (GET /v1/examples) with
 * `idea_ref` for its idea, posted to /v1/runs; the run's page opens once it is queued. A version
 * that is not ready is the api's 400 `idea_not_ready`, each failing check listed.
 */
export function IdeaPanelButton({ ideaId, title, version, ready }: { ideaId: string; title: string; version: number; ready: boolean }) {
  const { api, navigate } = useApp();
  const examples = useAsync(() => api.examples(), 'examples');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [failing, setFailing] = useState<string[]>([]);
  if (examples.state === 'loading') return <p className="muted">Loading the panel example…</p>;
  if (examples.state === 'error') return <p className="error">Could not load the examples: {errorText(examples.error)}</p>;
  const example = ideaPanelExampleOf(examples.value, judgesIdeas);
  if (!example) return <p className="muted">This api offers no panel example to copy (GET /v1/examples): submit a project file with idea_ref from New run.</p>;
  const run = async () => {
    setError(null);
    setFailing([]);
    setBusy(true);
    try {
      const project = ideaPanelProjectOf(example, { id: ideaId, version }, projectSlugOf(title, ideaId));
      const submitted = await api.submitRun(JSON.stringify(project));
      navigate(runPath(submitted.id));
    } catch (err) {
      if (err instanceof ApiHttpError && err.body?.error === 'idea_not_ready') {
        setFailing((err.body.issues ?? []).map((i) => `${typeof i.check === 'string' ? i.check : i.path}: ${i.message}`));
        setError(`Version ${version} is not ready for a panel.`);
      } else setError(actError(err));
      setBusy(false);
    }
  };
  return (
    <div className="panel-run">
      <p className="muted">
        Copies the {example.name} example (its judges, moderator, providers, budget and panel settings) with this idea's version {version} in place of its idea. The run locks version {version}.
        {!ready && ' The readiness checks above say it is not ready: the api will refuse it.'}
      </p>
      <button type="button" onClick={run} disabled={busy}>
        Run a panel on version {version}
      </button>
      <Outcome error={error} />
      {failing.length > 0 && (
        <ul className="issues" aria-label="Failing checks" data-testid="failing-checks">
          {failing.map((f, i) => (
            <li key={i} className="issue">
              {f}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
