import { useState } from 'react';
import type { IdeaDetail, IdeaVersionDetail, Worksheet } from '../lib/api-types';
import { lockTextOf, shownVersionOf, unknownVersion, versionLabelOf, versionsNewestFirst } from '../lib/ideas-versions';
import { ideaPath, IDEAS_PATH, runPath } from '../lib/route';
import { canAct, useApp } from './app-context';
import { IdeaDiffSection } from './idea-diff';
import { IdeaExperiment } from './idea-experiment';
import { IdeaHandoff } from './idea-handoff';
import { IdeaMemory } from './idea-memory';
import { IdeaEditForm } from './idea-edit-form';
import { IdeaEvidence } from './idea-evidence';
import { IdeaPanelButton } from './idea-panel-button';
import { Link } from './link';
import { Section } from './section';
import { errorText, useAsync } from './use-async';

/**
 * /ideas/:id[?version=N] (issue 23): one version's worksheet (the latest unless asked), every
 * version with its lock and the panels run on it, its readiness checks, the diff of two versions,
 * the evidence ledger, and for a token that may act: Edit (a new version), log an entry, and run
 * a panel on the version shown.
 */
export function IdeaPage({ ideaId, version }: { ideaId: string; version: number | null }) {
  const { api } = useApp();
  // Bumped by an act that changes the idea (an edit, a ledger entry): every part is asked again.
  const [generation, setGeneration] = useState(0);
  // The version an edit just wrote: until the idea is read again it is not among its versions, and is being loaded, not unknown.
  const [written, setWritten] = useState<number | null>(null);
  const refresh = (wrote: number | null = null) => {
    setWritten(wrote);
    setGeneration((g) => g + 1);
  };
  const detail = useAsync(() => api.idea(ideaId), `${ideaId}|${generation}`);
  if (detail.state === 'loading') return <p className="muted">Loading the idea…</p>;
  if (detail.state === 'error') {
    return (
      <>
        <h1>Idea {ideaId}</h1>
        <p role="alert" className="error">
          Could not load the idea: {errorText(detail.error)}
        </p>
        <p>
          <Link to={IDEAS_PATH}>See the ideas</Link>.
        </p>
      </>
    );
  }
  const d = detail.value;
  if (written !== null && version === written && !d.versions.some((x) => x.version === written)) return <p className="muted">Loading version {written}…</p>;
  const shown = shownVersionOf(d, version);
  return <IdeaVersionView key={`${shown}|${generation}`} detail={d} shown={shown} askedUnknown={unknownVersion(d, version) ? version : null} generation={generation} onChanged={refresh} />;
}

function IdeaVersionView({ detail, shown, askedUnknown, generation, onChanged }: { detail: IdeaDetail; shown: number; askedUnknown: number | null; generation: number; onChanged: (wrote?: number) => void }) {
  const { api, me, navigate } = useApp();
  const v = useAsync(() => api.ideaVersion(detail.id, shown), `${detail.id}|${shown}|${generation}`);
  const row = detail.versions.find((x) => x.version === shown)!;
  return (
    <>
      <p className="crumbs">
        <Link to={IDEAS_PATH}>Ideas</Link> / <span className="mono">{detail.id}</span>
      </p>
      <h1>{detail.title || detail.id}</h1>
      {askedUnknown !== null && (
        <p role="status" className="warn">
          This idea has no version {askedUnknown}: showing the latest, version {detail.latest_version}.
        </p>
      )}
      <dl className="run-facts">
        <div>
          <dt>Shown</dt>
          <dd data-testid="shown-version">Version {shown}</dd>
        </div>
        <div>
          <dt>Latest</dt>
          <dd>Version {detail.latest_version}</dd>
        </div>
        <div>
          <dt>Lock</dt>
          <dd data-testid="shown-lock">
            {row.locked ? (
              <>
                locked by <Link to={runPath(row.locked.run_id)}>{row.locked.run_id}</Link>
              </>
            ) : (
              lockTextOf(row)
            )}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>by {detail.created_by}</dd>
        </div>
      </dl>
      <div className="field version-pick">
        <label htmlFor="idea-version">Version</label>
        <select id="idea-version" value={shown} onChange={(e) => navigate(ideaPath(detail.id, Number(e.target.value)), { keepFocus: true })}>
          {versionsNewestFirst(detail.versions).map((x) => (
            <option key={x.version} value={x.version}>
              {versionLabelOf(x, detail.latest_version)}
            </option>
          ))}
        </select>
      </div>
      {v.state === 'loading' && <p className="muted">Loading version {shown}…</p>}
      {v.state === 'error' && (
        <p role="alert" className="error">
          Could not load version {shown}: {errorText(v.error)}
        </p>
      )}
      {v.state === 'ok' && (
        <>
          <Section title="Worksheet">
            <WorksheetView worksheet={v.value.worksheet} />
            <p className="muted small">
              Version {shown} by {v.value.created_by}, <time dateTime={v.value.created_at}>{whenText(v.value.created_at)}</time>
            </p>
          </Section>
          <ReadinessSection version={v.value} />
          {canAct(me) && (
            <Section title="Run a panel">
              <IdeaPanelButton ideaId={detail.id} title={v.value.worksheet.title || detail.title} version={shown} ready={v.value.readiness.ready} />
            </Section>
          )}
        </>
      )}
      <Section title="Versions">
        <ol className="idea-versions" reversed>
          {versionsNewestFirst(detail.versions).map((x) => (
            <li key={x.version} data-testid="idea-version" data-version={x.version} className={x.version === shown ? 'current' : undefined}>
              <Link to={ideaPath(detail.id, x.version)} aria-current={x.version === shown ? 'page' : undefined}>
                Version {x.version}
              </Link>
              {x.version === detail.latest_version && <span className="muted"> (latest)</span>}{' '}
              {x.locked ? (
                <span className="badge warn" data-testid="version-lock">
                  locked by <Link to={runPath(x.locked.run_id)}>{x.locked.run_id}</Link>
                </span>
              ) : (
                <span className="badge" data-testid="version-lock">
                  {lockTextOf(x)}
                </span>
              )}
              {x.panels.length > 0 && (
                <span className="panels">
                  {' '}
                  Panels:{' '}
                  {x.panels.map((p, i) => (
                    <span key={p}>
                      {i > 0 && ', '}
                      <Link to={runPath(p)} className="mono">
                        {p}
                      </Link>
                    </span>
                  ))}
                </span>
              )}
            </li>
          ))}
        </ol>
      </Section>
      {canAct(me) && v.state === 'ok' && (
        <Section title="Edit">
          <IdeaEditForm ideaId={detail.id} base={v.value} onSaved={(n) => { onChanged(n); navigate(ideaPath(detail.id, n)); }} />
        </Section>
      )}
      <IdeaDiffSection ideaId={detail.id} versions={detail.versions.map((x) => x.version)} shown={shown} generation={generation} />
      <IdeaEvidence ideaId={detail.id} generation={generation} onLogged={() => onChanged()} />
      <IdeaMemory memory={detail.memory} />
      <IdeaHandoff idea={detail} canAct={canAct(me)} />
      <IdeaExperiment idea={detail} canAct={canAct(me)} />
    </>
  );
}

/** 2026-04-01T09:30:12.345Z as 2026-04-01 09:30 UTC. */
const whenText = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const FIELDS: { key: keyof Worksheet; label: string }[] = [
  { key: 'problem', label: 'Problem' },
  { key: 'target_user', label: 'Target user' },
  { key: 'solution', label: 'Solution' },
  { key: 'evidence', label: 'Evidence cited' },
  { key: 'assumptions', label: 'Assumptions' },
  { key: 'open_risks', label: 'Open risks' },
  { key: 'no_evidence_yet', label: 'No evidence yet' },
];

function WorksheetView({ worksheet }: { worksheet: Worksheet }) {
  return (
    <dl className="worksheet">
      <div className="worksheet-row">
        <dt>Title</dt>
        <dd data-key="title">{worksheet.title || '—'}</dd>
      </div>
      {FIELDS.map(({ key, label }) => {
        const value = worksheet[key];
        return (
          <div key={key} className="worksheet-row">
            <dt>{label}</dt>
            <dd data-key={key} className="prose">
              {Array.isArray(value) ? (
                value.length ? (
                  <ul>
                    {value.map((item, i) => (
                      <li key={i}>{item}</li>
                    ))}
                  </ul>
                ) : (
                  '—'
                )
              ) : typeof value === 'boolean' ? (
                value ? 'yes' : 'no'
              ) : (
                value || '—'
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

function ReadinessSection({ version }: { version: IdeaVersionDetail }) {
  const r = version.readiness;
  return (
    <Section title="Readiness">
      <p data-testid="readiness" className={r.ready ? 'good-text' : 'error'}>
        {r.ready ? `Version ${version.version} is ready for a panel.` : `Version ${version.version} is not ready for a panel: ${r.checks.filter((c) => !c.ok).length} check(s) failing.`}
      </p>
      <ul className="checks">
        {r.checks.map((c) => (
          <li key={c.check} data-testid="readiness-check" data-ok={c.ok}>
            <span className={`badge ${c.ok ? 'good' : 'bad'}`}>{c.ok ? 'ok' : 'failing'}</span> <strong>{c.check}</strong>
            {c.path && <span className="muted small"> ({c.path})</span>}: {c.message}
          </li>
        ))}
      </ul>
    </Section>
  );
}
