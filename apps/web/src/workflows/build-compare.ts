import type { BuildRecords, RunDetail } from '../lib/api-types';
import type { CompareRow } from '../lib/compare';

const conf = (c: number | null | undefined) => (c === null || c === undefined ? '' : ` (${c.toFixed(2)})`);
const last = <T>(xs: readonly T[]): T | undefined => xs[xs.length - 1];

/**
 * A build's rows on the compare page, from its detail and records: the rounds it took, how the
 * critic, the validator and the synthesizer judged it, what the tests said and what it changed.
 * Records null (not loaded, or not a build's): only what the detail says.
 */
export function buildCompareRows(run: Pick<RunDetail, 'round' | 'fix_round'>, records: BuildRecords | null): CompareRow[] {
  const rows: CompareRow[] = [
    { label: 'Rounds', value: String(run.round) },
    { label: 'Fix rounds', value: String(run.fix_round) },
  ];
  if (!records) return rows;
  const accepted = records.proposals.find((p) => p.status === 'accepted');
  rows.push({ label: 'Proposals', value: `${records.proposals.length}${accepted ? ` (${accepted.label} accepted)` : ''}` });
  rows.push({ label: 'Acceptance criteria', value: records.acceptance_criteria === null ? '—' : String(records.acceptance_criteria.length) });
  const critique = last(records.critiques);
  rows.push({ label: 'Last critique', value: critique ? `${critique.verdict}${conf(critique.confidence)}` : '—' });
  const tests = last(records.test_runs);
  rows.push({ label: 'Last tests', value: tests ? `${tests.passed} passed, ${tests.failed} failed${tests.errors ? `, ${tests.errors} errors` : ''}${tests.timed_out ? ', timed out' : ''}` : '—' });
  const review = last(records.reviews);
  rows.push({ label: 'Last review', value: review ? `${review.verdict}${conf(review.confidence)}` : '—' });
  const s = records.synthesis;
  rows.push({ label: 'Synthesis', value: s ? `${s.overall_verdict ?? 'fact-only'}${conf(s.confidence)}${s.partial ? ', partial' : ''}` : '—' });
  const stat = [...records.implementations].reverse().find((i) => i.commit)?.commit?.diffstat;
  if (stat) {
    const added = stat.reduce((n, f) => n + (f.added ?? 0), 0);
    const deleted = stat.reduce((n, f) => n + (f.deleted ?? 0), 0);
    rows.push({ label: 'Files changed', value: `${stat.length} (+${added} −${deleted})` });
  }
  return rows;
}
