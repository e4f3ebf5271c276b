import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { ApiHttpError } from '../lib/api-client';
import { locateIssues, type LocatedIssue } from '../lib/issue-lines';
import { runPath } from '../lib/route';
import { SubmissionKey } from '../lib/submission-key';
import { useApp } from './app-context';
import { ExamplePicker } from './example-picker';
import { PLACEHOLDER_PROJECT } from '../lib/placeholder-project';
import { ScrollPre } from './scroll-pre';

/** Start of each line of the text, for putting the caret on an issue's line. */
function lineStart(text: string, line: number): [number, number] {
  const lines = text.split('\n');
  let start = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
  return [start, start + (lines[line - 1]?.length ?? 0)];
}

/**
 * Paste or upload a project file (YAML or JSON) and submit it as it is. A 400 lists each issue at
 * its field (data-field is the issue's dotted path) with the line of the file it points at; the
 * line's button puts the caret there.
 */
export function NewRunPage() {
  const { api, navigate } = useApp();
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [issues, setIssues] = useState<LocatedIssue[]>([]);
  const [error, setError] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  // One key per text: a double click, or a second try after a reply that never came, makes one run.
  const submissionKey = useRef(new SubmissionKey());

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    setText(await file.text());
    setFileName(file.name);
    setIssues([]);
    setError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setIssues([]);
    setError(null);
    try {
      const run = await api.submitRun(text, submissionKey.current.for(text));
      submissionKey.current.used();
      navigate(runPath(run.id));
    } catch (err) {
      if (err instanceof ApiHttpError && err.status === 400 && err.body?.issues?.length) {
        const n = err.body.issues.length;
        setError(`The api refused the project file: ${n} problem${n === 1 ? '' : 's'}, each shown at its field below.`);
        setIssues(locateIssues(text, err.body.issues));
      } else if (err instanceof ApiHttpError && err.status === 400 && err.body?.error === 'malformed_body') {
        // `malformed JSON body: line L, column C: …`: shown at that line like any other issue.
        setError('The api could not read the project file as JSON: 1 problem, shown below.');
        setIssues(locateIssues(text, [{ path: '', message: err.body.message.replace(/^malformed \w+ body: /, '') }]));
      } else if (err instanceof ApiHttpError && err.status === 403) {
        setError('This token is read-only: submitting a run needs a write token.');
      } else if (err instanceof ApiHttpError && err.status !== 401) {
        setError(`${err.message}${err.body?.error ? ` (${err.body.error})` : ''}`);
      } else if (!(err instanceof ApiHttpError)) {
        setError(`Could not reach the api: ${(err as Error).message}`);
      }
    } finally {
      setBusy(false);
    }
  };

  const goToLine = (line: number) => {
    const el = area.current;
    if (!el) return;
    const [start, end] = lineStart(text, line);
    el.focus();
    el.setSelectionRange(start, end);
    // Scroll the selected line into view: roughly line height × line.
    const lh = parseFloat(getComputedStyle(el).lineHeight) || 20;
    el.scrollTop = Math.max(0, (line - 3) * lh);
  };

  // Lines as an editor counts them: a final newline ends the last line, it does not start another.
  const lineCount = text ? text.replace(/\r?\n$/, '').split('\n').length : 0;

  return (
    <>
      <h1>New run</h1>
      <ExamplePicker
        onPick={(example) => {
          setText(example.text);
          setFileName(`example ${example.name}`);
          setIssues([]);
          setError(null);
        }}
      />
      <form onSubmit={submit} className="card new-run" noValidate>
        <div className="field">
          <label htmlFor="project-file">Project file</label>
          <textarea
            id="project-file"
            ref={area}
            value={text}
            onChange={(e) => setText(e.target.value)}
            rows={22}
            spellCheck={false}
            wrap="off"
            aria-describedby="project-file-help"
            aria-invalid={issues.length > 0 || undefined}
            aria-errormessage={issues.length ? 'project-file-issues' : undefined}
            placeholder={PLACEHOLDER_PROJECT}
          />
          <p id="project-file-help" className="muted">
            YAML (sent as text/yaml) or JSON (sent as application/json), exactly as typed{fileName ? ` — loaded from ${fileName}` : ''}.{' '}
            {lineCount > 0 && `${lineCount} lines.`}
          </p>
        </div>
        <div className="field">
          <label htmlFor="project-upload">Upload project file</label>
          <input id="project-upload" type="file" accept=".yaml,.yml,.json,text/yaml,application/json,text/plain" onChange={onFile} />
        </div>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {issues.length > 0 && (
          <ul id="project-file-issues" className="issues" aria-label="Problems in the project file">
            {issues.map((i, n) => (
              <li key={`${i.path}-${n}`} data-field={i.path} className="issue">
                <span className="issue-path mono">{i.path || '(root)'}</span>
                <span className="issue-message">{i.message}</span>
                {i.line !== null ? (
                  <div className="issue-line">
                    <button type="button" className="link" onClick={() => goToLine(i.line as number)}>
                      line {i.line}
                    </button>
                    <ScrollPre className="issue-code">{i.lineText}</ScrollPre>
                  </div>
                ) : (
                  <span className="muted">(not in the file as written)</span>
                )}
              </li>
            ))}
          </ul>
        )}
        <div className="actions">
          <button type="submit" disabled={busy || !text.trim()}>
            {busy ? 'Submitting…' : 'Submit run'}
          </button>
        </div>
      </form>
    </>
  );
}
