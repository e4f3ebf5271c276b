import type { JudgeRole } from '@roundtable/contracts';
import { JUDGE_ORDER, type PanelView, type RunView } from '@roundtable/run-view';
import type { PanelRecords } from '../lib/api-types';
import { fmtPercent } from '../lib/format';
import { Items } from './lists';
import { Empty, Section } from './section';

/** How the panel names its judges on the page. */
export const JUDGE_NAMES: Record<JudgeRole, string> = {
  vc: 'VC',
  engineer: 'Engineer',
  pm: 'PM',
  customer: 'Customer',
  competitor: 'Competitor',
};

const signed = (n: number) => (n > 0 ? `+${n}` : `${n}`);

function Judges({ panel, records }: { panel: PanelView; records: PanelRecords | null }) {
  return (
    <Section title="Judges">
      {panel.roast?.quality && (
        <p className={panel.roast.quality.status === 'ok' ? 'muted' : 'warn'}>
          Quality check: {panel.roast.quality.status}
          {records?.quality?.reasons.length ? ` — ${records.quality.reasons.join('; ')}` : ''}
        </p>
      )}
      <div className="cards">
        {panel.judges.map((j) => {
          const r = records?.judges.find((x) => x.judge === j.judge);
          const v = j.verdict;
          return (
            <article key={j.judge} data-testid="judge-card" data-judge={j.judge} className={`judge-card state-${j.state}`}>
              <header>
                <h3 id={`judge-${j.judge}`}>{JUDGE_NAMES[j.judge]}</h3>
                <span className="score" aria-label={`score ${j.score ?? 'not yet'}`}>
                  {j.score ?? '—'}
                  <span className="muted">/10</span>
                </span>
              </header>
              <p className="muted">
                {j.state}
                {v && ` · ${v.stance} · confidence ${fmtPercent(v.confidence)}`}
              </p>
              <div className="flags" aria-label="Quality flags">
                {j.weak && <span className="badge warn">weak</span>}
                {j.genericRate !== null && <span className={`badge ${j.genericRate > 0.5 ? 'warn' : ''}`}>generic evidence {fmtPercent(j.genericRate)}</span>}
                {r?.duplicate_concerns.length ? <span className="badge warn">{r.duplicate_concerns.length} repeated concern{r.duplicate_concerns.length === 1 ? '' : 's'}</span> : null}
                {!j.weak && j.genericRate === null && !r?.duplicate_concerns.length && v && <span className="badge good">no flags</span>}
              </div>
              {v ? (
                <>
                  <Items title="Top concerns" items={v.top_concerns} />
                  <Items title="Evidence" items={v.evidence} />
                  <div className="items">
                    <h4>What would change my mind</h4>
                    <p>{v.what_would_change_my_mind}</p>
                  </div>
                </>
              ) : (
                <Empty>No verdict yet.</Empty>
              )}
            </article>
          );
        })}
      </div>
    </Section>
  );
}

function Debate({ panel }: { panel: PanelView }) {
  return (
    <Section title="Debate">
      {panel.debate.length === 0 && <Empty>No debate turn yet.</Empty>}
      <ol className="debate">
        {panel.debate.map((t) => (
          <li key={t.sequence} data-testid="debate-turn" className={t.streaming ? 'turn speaking' : 'turn'} aria-busy={t.streaming || undefined}>
            <p className="turn-head">
              <strong>{JUDGE_NAMES[t.speaker]}</strong>{' '}
              <span className="muted">
                round {t.round}
                {t.label ? ` · ${t.label}` : ''}
                {t.respondsTo.length ? ` · responds to ${t.respondsTo.join(', ')}` : ''}
                {t.streaming ? ' · speaking…' : ''}
              </span>
            </p>
            <p className="prose">{t.message}</p>
          </li>
        ))}
      </ol>
    </Section>
  );
}

function Revote({ panel }: { panel: PanelView }) {
  const voted = panel.judges.filter((j) => j.revote);
  return (
    <Section title="Re-vote">
      {voted.length === 0 ? (
        <Empty>{panel.revoteBaseline ? 'The judges are re-voting…' : 'No re-vote yet.'}</Empty>
      ) : (
        <table className="stack">
          <caption className="visually-hidden">Each judge&apos;s score before and after the debate</caption>
          <thead>
            <tr>
              {['Judge', 'Previous', 'Score', 'Delta', 'Reason'].map((h) => (
                <th key={h} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {voted.map((j) => {
              const r = j.revote!;
              return (
                <tr key={j.judge} data-testid="revote-delta">
                  <td data-label="Judge">{JUDGE_NAMES[j.judge]}</td>
                  <td data-label="Previous" className="num">{r.previous}</td>
                  <td data-label="Score" className="num">{r.score}</td>
                  <td data-label="Delta" className={`num ${r.delta > 0 ? 'add' : r.delta < 0 ? 'del' : ''}`}>
                    {signed(r.delta)}
                    {r.capped && <span className="muted"> (capped at ±3)</span>}
                  </td>
                  <td data-label="Reason">{r.reason ?? <span className="muted">unchanged</span>}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Section>
  );
}

function Moderator({ panel }: { panel: PanelView }) {
  const m = panel.moderator;
  return (
    <Section title="Moderator">
      {!m ? (
        <Empty>The moderator writes the synthesis after the re-vote.</Empty>
      ) : (
        <>
          <p className="claim">
            {m.overall_recommendation} <span className="muted">confidence {fmtPercent(m.confidence)}</span>
          </p>
          <Items title="Top strengths" items={m.top_strengths} />
          <Items title="Top risks" items={m.top_risks} />
          <Items title="Top problems" items={m.top_problems} />
          <div className="items">
            <h4>Biggest disagreement</h4>
            <p>{m.biggest_disagreement}</p>
          </div>
          <div className="items">
            <h4>Recommended experiment</h4>
            <p>{m.recommended_experiment}</p>
          </div>
        </>
      )}
    </Section>
  );
}

function Appeal({ panel, records }: { panel: PanelView; records: PanelRecords | null }) {
  return (
    <Section title="Appeal">
      {panel.appeals.length === 0 && <Empty>No appeal.</Empty>}
      {panel.appeals.map((a, i) => {
        const last = i === panel.appeals.length - 1;
        return (
          <article key={a.sequence} className="record">
            <h3>
              Appeal {i + 1} <span className="badge">{a.after ? 'completed' : 'running…'}</span>
            </h3>
            {last && records?.appeal && <Items title="New evidence" items={records.appeal.evidence} />}
            <ul>
              {JUDGE_ORDER.filter((j) => a.judges.includes(j)).map((j) => (
                <li key={j}>
                  <strong>{JUDGE_NAMES[j]}</strong>: {a.before[j] ?? '—'} → {a.after ? (a.after[j] ?? 'no new score') : '…'}
                  {a.changeReasons[j] && <div className="muted">{a.changeReasons[j]}</div>}
                </li>
              ))}
            </ul>
          </article>
        );
      })}
    </Section>
  );
}

export function PanelSections({ view, records }: { view: RunView; records: PanelRecords | null }) {
  const panel = view.panel;
  if (!panel) return null;
  return (
    <>
      {records?.idea && (
        <Section title="Idea">
          <h3>{records.idea.title}</h3>
          <p className="prose">{records.idea.description}</p>
          <p className="muted">For: {records.idea.target_user}</p>
          <Items title="Evidence given" items={records.idea.evidence} />
        </Section>
      )}
      <Judges panel={panel} records={records} />
      <Debate panel={panel} />
      <Revote panel={panel} />
      <Moderator panel={panel} />
      <Appeal panel={panel} records={records} />
    </>
  );
}
