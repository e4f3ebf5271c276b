import { useState, type FormEvent } from 'react';
import { ApiHttpError } from '../lib/api-client';
import type { IdeaVersionDetail } from '../lib/api-types';
import { editBodyOf, fieldIssuesOf, worksheetFormOf, WORKSHEET_FORM_FIELDS, type FieldIssues } from '../lib/ideas';
import { actError, Outcome } from './act-outcome';
import { useApp } from './app-context';
import { GeneralIssues, WorksheetFields } from './idea-worksheet-fields';

const NO_ISSUES: FieldIssues = { byField: {}, general: [] };
const FIELD_NAMES = WORKSHEET_FORM_FIELDS.map((f) => f.name);

/**
 * Edit the shown version (POST /v1/ideas/:id/versions with the changed fields and `base_version`):
 * the api writes the next version over it. A version a panel locked is the api's 409, shown as it
 * says it (which run, and to edit the latest instead); a 400 is shown at each field it names.
 */
export function IdeaEditForm({ ideaId, base, onSaved }: { ideaId: string; base: IdeaVersionDetail; onSaved: (version: number) => void }) {
  const { api } = useApp();
  const [form, setForm] = useState(() => worksheetFormOf(base.worksheet));
  const [issues, setIssues] = useState<FieldIssues>(NO_ISSUES);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setIssues(NO_ISSUES);
    const built = editBodyOf(base, form);
    if (!built.ok) return setError(built.message);
    setBusy(true);
    try {
      const saved = await api.editIdea(ideaId, built.body);
      onSaved(saved.version);
    } catch (err) {
      if (err instanceof ApiHttpError && err.status === 400 && err.body?.issues?.length) setIssues(fieldIssuesOf(err.body, FIELD_NAMES));
      setError(err instanceof ApiHttpError && err.status === 409 ? err.message : actError(err));
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Edit" className="worksheet-form">
      <p className="muted wide-row">
        {base.locked ? `Version ${base.version} is locked by ${base.locked.run_id}: the api refuses an edit of it; edit the latest version instead.` : `Saving makes a new version from version ${base.version} with your changes; version ${base.version} stays as it is.`}
      </p>
      <WorksheetFields idPrefix="edit-idea" form={form} onChange={setForm} issues={issues} withEvidence />
      <div className="act-submit">
        <GeneralIssues messages={issues.general} />
        <button type="submit" disabled={busy}>
          Save as a new version
        </button>
        <Outcome error={error} />
      </div>
    </form>
  );
}
