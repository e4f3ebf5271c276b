import { useState, type FormEvent } from 'react';
import { ApiHttpError } from '../lib/api-client';
import { fmtAge } from '../lib/format';
import { EMPTY_WORKSHEET_FORM, fieldIssuesOf, worksheetOf, WORKSHEET_FORM_FIELDS, type FieldIssues } from '../lib/ideas';
import { lockedVersionsText } from '../lib/ideas-versions';
import { ideaPath } from '../lib/route';
import { actError, Outcome } from './act-outcome';
import { canAct, useApp } from './app-context';
import { GeneralIssues, WorksheetFields } from './idea-worksheet-fields';
import { Link } from './link';
import { errorText, useAsync } from './use-async';


const NO_ISSUES: FieldIssues = { byField: {}, general: [] };
const FIELD_NAMES = WORKSHEET_FORM_FIELDS.map((f) => f.name);

/**
 * /ideas (issue 23): every idea with its latest version, the versions a panel locked and how many
 * panels ran (all in the list reply), and, for a token that may act,
 * the New idea form (POST /v1/ideas), a 400 shown at each field it names.
 */
export function IdeasPage() {
  const { api, me } = useApp();
  const ideas = useAsync(() => api.ideas(), 'ideas');
  const now = Date.now();
  return (
    <>
      <div className="page-head">
        <h1>Ideas</h1>
      </div>
      <p className="muted">An idea is a worksheet kept as numbered versions; a panel run on a version locks it, and an edit makes the next version.</p>
      {ideas.state === 'loading' && <p className="muted">Loading ideas…</p>}
      {ideas.state === 'error' && (
        <p role="alert" className="error">
          Could not load the ideas: {errorText(ideas.error)}
        </p>
      )}
      {ideas.state === 'ok' &&
        (ideas.value.length === 0 ? (
          <p className="muted">No ideas yet.</p>
        ) : (
          <table className="stack ideas-table">
            <caption className="visually-hidden">Ideas, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col" className="num">
                  Latest version
                </th>
                <th scope="col">Locked versions</th>
                <th scope="col" className="num">
                  Panels
                </th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {ideas.value.map((i) => (
                <tr key={i.id} data-testid="idea-row">
                  <td data-label="Title">
                    <Link to={ideaPath(i.id)}>{i.title || i.id}</Link> <span className="muted small mono">{i.id}</span>
                  </td>
                  <td data-label="Latest version" className="num">
                    {i.latest_version}
                  </td>
                  <td data-label="Locked versions">{lockedVersionsText(i.locked_versions)}</td>
                  <td data-label="Panels" className="num">
                    {i.panels}
                  </td>
                  <td data-label="Created">
                    <time dateTime={i.created_at} title={i.created_at}>
                      {fmtAge(i.created_at, now)}
                    </time>{' '}
                    <span className="muted small">by {i.created_by}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {canAct(me) && <NewIdeaForm />}
    </>
  );
}

function NewIdeaForm() {
  const { api, navigate } = useApp();
  const [form, setForm] = useState(EMPTY_WORKSHEET_FORM);
  const [issues, setIssues] = useState<FieldIssues>(NO_ISSUES);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setIssues(NO_ISSUES);
    setBusy(true);
    try {
      const created = await api.createIdea({ ...worksheetOf(form) });
      navigate(ideaPath(created.id));
    } catch (err) {
      if (err instanceof ApiHttpError && err.status === 400 && err.body?.issues?.length) setIssues(fieldIssuesOf(err.body, FIELD_NAMES));
      setError(actError(err));
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="new-idea-heading" className="card">
      <h2 id="new-idea-heading">New idea</h2>
      <form onSubmit={submit} aria-labelledby="new-idea-heading" className="worksheet-form">
        <WorksheetFields idPrefix="new-idea" form={form} onChange={setForm} issues={issues} withEvidence={false} />
        <div className="act-submit">
          <GeneralIssues messages={issues.general} />
          <button type="submit" disabled={busy}>
            Create idea
          </button>
          <Outcome error={error} />
        </div>
      </form>
    </section>
  );
}
