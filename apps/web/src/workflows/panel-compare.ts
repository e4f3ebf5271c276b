import type { PanelRecords, RunDetail } from '../lib/api-types';
import type { CompareRow } from '../lib/compare';

/**
 * A panel's rows on the compare page: the moderator's recommendation, each judge's score (with
 * the score before the re-vote when it moved), their mean, the re-vote's changes and the quality
 * gate. From the detail's panel summary; the records add the re-vote's and the appeal's counts.
 */
export function panelCompareRows(run: Pick<RunDetail, 'panel'>, records: PanelRecords | null): CompareRow[] {
  const p = run.panel;
  if (!p) return [];
  const rows: CompareRow[] = [{ label: 'Recommendation', value: p.recommendation ?? '—' }];
  // The judges in the records' fixed speaker order when there are records, else as the summary lists them.
  const judges = records ? records.judges.map((j) => j.judge) : (Object.keys(p.scores) as (keyof typeof p.scores)[]);
  const scores: number[] = [];
  for (const judge of judges) {
    const score = p.scores[judge];
    const before = p.revote_baseline?.[judge];
    if (score !== undefined) scores.push(score);
    rows.push({ label: `Score: ${judge}`, value: score === undefined ? '—' : before !== undefined && before !== score ? `${before} → ${score}` : String(score) });
  }
  rows.push({ label: 'Mean score', value: scores.length ? (scores.reduce((a, b) => a + b, 0) / scores.length).toFixed(1) : '—' });
  if (records?.revote) {
    const changed = records.revote.rescores.filter((r) => r.changed).length;
    const capped = records.revote.rescores.filter((r) => r.capped).length;
    rows.push({ label: 'Re-vote', value: `${changed} of ${records.revote.rescores.length} changed${capped ? `, ${capped} capped at ±3` : ''}` });
  }
  rows.push({ label: 'Debate messages', value: `${p.debate_messages} (at most ${p.max_debate_rounds} rounds)` });
  rows.push({ label: 'Quality', value: `${p.quality ?? '—'}${p.low_confidence ? ', low confidence' : ''}` });
  if (p.appeal) rows.push({ label: 'Appeal', value: `${p.appeal.status} (${p.appeal.judges.join(', ')})` });
  return rows;
}
