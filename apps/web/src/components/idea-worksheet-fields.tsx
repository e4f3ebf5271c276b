import type { FieldIssues, WorksheetForm } from '../lib/ideas';
import { WORKSHEET_FORM_FIELDS } from '../lib/ideas';

const MULTILINE = new Set<keyof WorksheetForm>(['problem', 'solution', 'assumptions', 'open_risks']);

/** What the api said about one field, under it (the field points at it with aria-describedby). */
export function FieldIssue({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <span id={id} className="error small field-issue">
      {messages.join('; ')}
    </span>
  );
}

/** The issues that name no field, above the form's button. */
export function GeneralIssues({ messages }: { messages: string[] }) {
  if (!messages.length) return null;
  return (
    <ul className="issues" aria-label="Problems with the worksheet">
      {messages.map((m, i) => (
        <li key={i} className="issue">
          {m}
        </li>
      ))}
    </ul>
  );
}

/**
 * A worksheet's fields (New idea, Edit), each a `data-field` holding the api's 400 for it.
 * `withEvidence`: the cited ledger ids (a new idea has an empty ledger, so the New idea form leaves it out).
 */
export function WorksheetFields({
  idPrefix,
  form,
  onChange,
  issues,
  withEvidence,
}: {
  idPrefix: string;
  form: WorksheetForm;
  onChange: (next: WorksheetForm) => void;
  issues: FieldIssues;
  withEvidence: boolean;
}) {
  return (
    <>
      {WORKSHEET_FORM_FIELDS.filter((f) => withEvidence || f.name !== 'evidence').map(({ name, label }) => {
        const id = `${idPrefix}-${name}`;
        const messages = issues.byField[name];
        const described = messages?.length ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-issue` } : {};
        if (name === 'no_evidence_yet') {
          return (
            <div key={name} className="field" data-field={name}>
              <label className="check" htmlFor={id}>
                <input id={id} type="checkbox" checked={form.no_evidence_yet} onChange={(e) => onChange({ ...form, no_evidence_yet: e.target.checked })} {...described} />
                {label}
              </label>
              <FieldIssue id={`${id}-issue`} messages={messages} />
            </div>
          );
        }
        const value = form[name] as string;
        const set = (v: string) => onChange({ ...form, [name]: v });
        return (
          <div key={name} className="field" data-field={name}>
            <label htmlFor={id}>{label}</label>
            {MULTILINE.has(name) ? (
              <textarea id={id} rows={3} value={value} onChange={(e) => set(e.target.value)} {...described} />
            ) : (
              <input id={id} type="text" className="wide-input" value={value} onChange={(e) => set(e.target.value)} {...described} />
            )}
            <FieldIssue id={`${id}-issue`} messages={messages} />
          </div>
        );
      })}
    </>
  );
}
