import { hasEnded, testRunState, type RunView } from '@roundtable/run-view';
import { useState } from 'react';
import { ApiHttpError } from '../lib/api-client';
import type { BuildRecords, ImplementationItem, Problem } from '../lib/api-types';
import { fmtInt, fmtPercent } from '../lib/format';
import { splitUnifiedDiff } from '../lib/unified-diff';
import { useApp } from './app-context';
import { Items, Pair, VerdictBadge } from './lists';
import { Empty, Section } from './section';
import { errorText, type Async } from './use-async';
import { ScrollPre } from './scroll-pre';

function Problems({ problems }: { problems: Problem[] }) {
  if (!problems.length) return null;
  return (
    <div className="items">
      <h4>Problems</h4>
      <ul className="problems">
        {problems.map((p, i) => (
          <li key={i}>
            <span className={`badge sev-${p.severity}`}>{p.severity}</span> {p.description}
            {p.location && <span className="muted"> — {p.location}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

const Pending = () => <p className="muted">Details load from the run&apos;s records…</p>;

function Proposals({ view, records }: { view: RunView; records: BuildRecords | null }) {
  return (
    <Section title="Proposals">
      {view.build.proposals.length === 0 && <Empty>No proposal yet.</Empty>}
      {view.build.proposals.map((p) => {
        const r = records?.proposals.find((x) => x.label === p.label);
        return (
          <article key={p.label} className="record">
            <h3>
              {p.label}
              {p.revision_of && <span className="muted"> revises {p.revision_of}</span>}
              {r && <span className="badge">{r.status}</span>}
            </h3>
            <p className="claim">{p.claim}</p>
            <p className="muted">confidence {fmtPercent(p.confidence)}</p>
            {r ? (
              <>
                <details>
                  <summary>Approach</summary>
                  <p className="prose">{r.approach}</p>
                </details>
                <Items title="Assumptions" items={r.assumptions} />
                <Items title="Evidence" items={r.evidence} />
                <Items title="Risks" items={r.risks} />
                <Items title="Tests required" items={r.tests_required} />
                {r.responses_to_criticism.length > 0 && (
                  <div className="items">
                    <h4>Reviser&apos;s responses</h4>
                    <ul>
                      {r.responses_to_criticism.map((x, i) => (
                        <li key={i}>
                          <span className={`badge action-${x.action}`}>{x.action}</span> {x.problem}
                          <div className="muted">{x.reason}</div>
                        </li>
                      ))}
                    </ul>
                  </div>
                )}
              </>
            ) : (
              <Pending />
            )}
          </article>
        );
      })}
    </Section>
  );
}

function Critiques({ view, records }: { view: RunView; records: BuildRecords | null }) {
  return (
    <Section title="Critiques">
      {view.build.critiques.length === 0 && <Empty>No critique yet.</Empty>}
      {view.build.critiques.map((c) => {
        const r = records?.critiques.find((x) => x.label === c.label);
        return (
          <article key={c.label} className="record">
            <h3>
              {c.label} <span className="muted">on {c.target}</span> <VerdictBadge verdict={c.verdict} />
            </h3>
            {r ? (
              <>
                <Problems problems={r.problems} />
                <Items title="Counterarguments" items={r.counterarguments} />
                <Items title="Tests required" items={r.tests_required} />
              </>
            ) : (
              <p className="muted">{c.problems} problem{c.problems === 1 ? '' : 's'}</p>
            )}
          </article>
        );
      })}
    </Section>
  );
}

function FileBody({ runId, path, bytes }: { runId: string; path: string; bytes: number | null }) {
  const { api } = useApp();
  const [body, setBody] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    if (body !== null) return;
    api.file(runId, path).then(setBody, (e: Error) => setError(errorText(e)));
  };
  return (
    <details onToggle={(e) => (e.currentTarget.open ? load() : undefined)}>
      <summary>
        <span className="mono">{path}</span>
        {bytes !== null && <span className="muted"> {fmtInt(bytes)} bytes</span>}
      </summary>
      {error ? <p className="error">{error}</p> : body === null ? <p className="muted">Loading…</p> : <ScrollPre className="code">{body}</ScrollPre>}
    </details>
  );
}

function Implementation({ runId, label, files, fixRound, r }: { runId: string; label: string; files: string[]; fixRound: number; r: ImplementationItem | undefined }) {
  return (
    <article className="record">
      <h3>
        {label} <span className="muted">fix round {fixRound}</span> {r && <span className={`badge impl-${r.status}`}>{r.status}</span>}
      </h3>
      {r?.apply_error && <p className="error">Not applied: {r.apply_error}</p>}
      {r?.notes && <p className="prose">{r.notes}</p>}
      <div className="items">
        <h4>Files</h4>
        <ul className="files">
          {(r?.files ?? files.map((path) => ({ path, bytes: null as number | null }))).map((f) => (
            <li key={f.path}>
              <FileBody runId={runId} path={f.path} bytes={f.bytes} />
            </li>
          ))}
        </ul>
      </div>
      {r && r.deleted.length > 0 && <Items title="Deleted" items={r.deleted} />}
      {r && <Items title="Known gaps" items={r.known_gaps} />}
      {r?.commit && (
        <p className="muted">
          commit <span className="mono">{r.commit.commit.slice(0, 10)}</span> on <span className="mono">{r.commit.branch}</span>
        </p>
      )}
    </article>
  );
}

function Diff({ diff, ended }: { diff: Async<string> | null; ended: boolean }) {
  if (diff === null && ended) return <Empty>No diff: the run ended before any implementation.</Empty>;
  if (diff === null) return <Empty>The run branch&apos;s diff loads when the run ends.</Empty>;
  if (diff.state === 'loading') return <Empty>Loading the diff…</Empty>;
  if (diff.state === 'error') {
    const e = diff.error;
    if (e instanceof ApiHttpError && e.status === 404) return <Empty>No diff: the run applied no commit{e.body?.error && e.body.error !== 'no_diff' ? ` (${e.body.message})` : ''}.</Empty>;
    return <p className="error">Could not load the diff: {errorText(e)}</p>;
  }
  const files = splitUnifiedDiff(diff.value);
  if (!files.length) return <Empty>The diff is empty.</Empty>;
  return (
    <>
      {files.map((f, i) => (
        <div key={`${f.path}-${i}`} className="diff-file">
          <div className="diff-head">
            <h3 className="mono">{f.path}</h3>
            <span className="muted">
              {f.status} · <span className="add">+{f.added}</span> <span className="del">−{f.deleted}</span>
            </span>
          </div>
          <ScrollPre className="diff" aria-label={`Diff of ${f.path}`}>
            {f.lines.map((l, n) => (
              <span key={n} className={`dl ${l.kind}`}>
                {l.text}
                {'\n'}
              </span>
            ))}
          </ScrollPre>
        </div>
      ))}
    </>
  );
}

/** An agent-mode engineer's tool loop on an API provider: what each turn called (the calls and results are on the call pages). */
function ToolTurns({ turns }: { turns: RunView['build']['toolTurns'] }) {
  return (
    <article className="record">
      <h3>Engineer's tool turns</h3>
      <ol className="tool-turns">
        {turns.map((t) => (
          <li key={`${t.label}-${t.turn}`}>
            <span className="mono">{t.label}</span> turn {t.turn}:{' '}
            {t.tools.length === 0
              ? <span className="muted">no tool called</span>
              : t.tools.map((tool, i) => (
                  <span key={i} className={tool.is_error ? 'error' : undefined}>
                    {i > 0 && ', '}
                    <span className="mono">{tool.name}</span>
                    {tool.target ? ` ${tool.target}` : ''}
                    {tool.is_error ? ' (refused)' : ''}
                  </span>
                ))}
          </li>
        ))}
      </ol>
    </article>
  );
}

/** The build's Proposals tab: proposals and critiques, the criteria they locked, the synthesis' disagreements. */
export function BuildProposals({ view, records }: { view: RunView; records: BuildRecords | null }) {
  const criteria = view.build.criteria ?? records?.acceptance_criteria ?? null;
  return (
    <>
      <Pair>
        <Proposals view={view} records={records} />
        <Critiques view={view} records={records} />
      </Pair>
      <Section title="Acceptance criteria">
        {criteria?.length ? (
          <ul className="criteria">
            {criteria.map((c) => (
              <li key={c.id}>
                <span className="mono">{c.id}</span> {c.text}
              </li>
            ))}
          </ul>
        ) : (
          <Empty>Not locked yet: the criteria are fixed when a critique accepts.</Empty>
        )}
      </Section>
      <Section title="Disagreements">
        {!records?.disagreements.length ? (
          <Empty>{records?.synthesis ? 'The synthesis names no disagreement.' : 'The synthesis lists them when the run closes.'}</Empty>
        ) : (
          records.disagreements.map((d, i) => (
            <article key={i} className="record">
              <h3>
                {d.topic} <span className={`badge ${d.resolved ? 'good' : 'warn'}`}>{d.resolved ? 'resolved' : 'open'}</span>
              </h3>
              <ul>
                {d.positions.map((p, j) => (
                  <li key={j}>
                    <strong>{p.agent_role}</strong>: {p.position}
                  </li>
                ))}
              </ul>
              {d.resolution && <p className="muted">Resolution: {d.resolution}</p>}
            </article>
          ))
        )}
        {view.openQuestions.length > 0 && (
          <Items title="Open questions" items={view.openQuestions.map((q) => `${q.role}: ${q.question}`)} />
        )}
      </Section>
    </>
  );
}

/** The build's Diff & tests tab: what the engineer wrote, the run branch's diff, the tests and the review. */
export function BuildDiffTests({ view, records, runId, diff }: { view: RunView; records: BuildRecords | null; runId: string; diff: Async<string> | null }) {
  const b = view.build;
  return (
    <>
      <Section title="Implementations">
        {b.implementations.length === 0 && <Empty>No implementation yet.</Empty>}
        {b.implementations.map((i) => (
          <Implementation key={i.label} runId={runId} label={i.label} files={i.files} fixRound={i.fix_round} r={records?.implementations.find((x) => x.label === i.label)} />
        ))}
        {b.toolTurns.length > 0 && <ToolTurns turns={b.toolTurns} />}
        {view.notices.map((n) => n.kind === 'files_rejected' && (
          <p key={n.sequence} className="error">
            {n.payload.label}: files rejected — {n.payload.error}
          </p>
        ))}
      </Section>
      <Section title="Diff">
        <Diff diff={diff} ended={hasEnded(view)} />
      </Section>
      <Section title="Tests">
        {b.tests.length === 0 && <Empty>No test run yet.</Empty>}
        {b.tests.map((t, i) => {
          const r = t.result ? records?.test_runs.find((x) => x.label === t.result?.label) : undefined;
          const passed = t.result && t.result.exit_code === 0 && !t.result.timed_out;
          return (
            <article key={`${t.implementation}-${i}`} className="record">
              <h3>
                {t.result?.label ?? (testRunState(view, t) === 'unfinished' ? 'not finished' : 'running')} <span className="muted">on {t.implementation}</span>{' '}
                {t.result ? (
                  <span className={`badge ${passed ? 'good' : 'bad'}`}>{t.result.timed_out ? 'timed out' : passed ? 'passed' : `exit ${t.result.exit_code}`}</span>
                ) : testRunState(view, t) === 'unfinished' ? (
                  <span className="badge bad">not finished (the run ended)</span>
                ) : (
                  <span className="badge pending">running…</span>
                )}
              </h3>
              <p className="mono small">{t.command}</p>
              {t.result && (
                <p>
                  {t.result.passed} passed, {t.result.failed} failed, {t.result.errors} errors{r ? `, ${r.duration_s.toFixed(1)} s` : ''}
                </p>
              )}
              {r?.output_tail && (
                <details>
                  <summary>Output (last 4 KiB)</summary>
                  <ScrollPre className="code">{r.output_tail}</ScrollPre>
                </details>
              )}
            </article>
          );
        })}
      </Section>
      <Section title="Review">
        {b.reviews.length === 0 && <Empty>No review yet.</Empty>}
        {b.reviews.map((rv) => {
          const r = records?.reviews.find((x) => x.label === rv.label);
          return (
            <article key={rv.label} className="record">
              <h3>
                {rv.label} {r && <span className="muted">on {r.target_label}</span>} <VerdictBadge verdict={rv.verdict} />
              </h3>
              {r ? (
                <>
                  {r.requirement_checks.length > 0 && (
                    <table className="stack checks">
                      <caption className="visually-hidden">Requirement checks of {rv.label}</caption>
                      <thead>
                        <tr>
                          <th scope="col">Requirement</th>
                          <th scope="col">Satisfied</th>
                          <th scope="col">Evidence</th>
                        </tr>
                      </thead>
                      <tbody>
                        {r.requirement_checks.map((c, i) => (
                          <tr key={i}>
                            <td data-label="Requirement">{c.requirement}</td>
                            <td data-label="Satisfied">
                              <span className={`badge ${c.satisfied ? 'good' : 'bad'}`}>{c.satisfied ? 'yes' : 'no'}</span>
                            </td>
                            <td data-label="Evidence">{c.evidence}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                  <Problems problems={r.problems} />
                </>
              ) : (
                <Pending />
              )}
            </article>
          );
        })}
      </Section>
    </>
  );
}
