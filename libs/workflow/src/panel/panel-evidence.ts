import { evidenceBlock, evidenceTagOpenings, scannedEvidenceBlock } from '../evidence-block';
import type { DebateTurnRecord, JudgeVerdictRecord, PanelRunState, RevoteRecord } from './panel-types';

/**
 * The evidence blocks of the panel's records (verdicts, debate turns, re-votes), each record's
 * text scanned for forged evidence markup once, not at every later prompt that shows it: every
 * turn prompt shows every verdict and every turn so far, so rescanning them made the guard's cost
 * grow with the debate.
 *
 * A record whose text was scanned and holds no tag opening is remembered (a WeakSet of the record
 * objects, which are never changed once recorded), and the snapshot keeps which they are
 * (`evidence_clean`, the calls' numbers: panel-stored-state.ts), so the steps after it skip the
 * scan too. Any other record — one never shown yet, one whose text holds an opening, or one of a
 * snapshot written before this (no `evidence_clean`) — is scanned as evidenceBlock always has.
 * Each kind of record has exactly one text (below), so what was scanned is what is shown.
 */

const json = (value: unknown): string => JSON.stringify(value, null, 2);

/**
 * A verdict's text: its body as indented JSON. The snapshot's jsonb may hand the body back with its
 * keys in another order; which tag openings the text holds does not depend on that order, since an
 * opening (a `<`, then spaces or slashes, then the word) lies inside one JSON string (a quote is
 * neither), and each string is written alike wherever it stands.
 */
export const verdictText = (v: JudgeVerdictRecord): string => json(v.body);

/** A debate turn's text: who spoke in which round, the message, and what it responds to. */
export const turnText = (t: DebateTurnRecord): string =>
  `round ${t.round}, ${t.speaker}:\n${t.body.message}${t.body.responds_to?.length ? `\n(responds to ${t.body.responds_to.join(', ')})` : ''}`;

/** A re-vote's text, as the moderator sees it. */
export const revoteText = (r: RevoteRecord): string =>
  json({ judge: r.judge, previous: r.previous, score: r.score, capped: r.capped, change_reason: r.body.change_reason ?? null });

/** Records of each kind whose text is known to hold no tag opening. */
const clean = { verdict: new WeakSet<object>(), turn: new WeakSet<object>(), revote: new WeakSet<object>() };

function recordBlock<R extends { label: string }>(known: WeakSet<object>, record: R, type: string, text: (r: R) => string): string {
  const content = text(record);
  if (known.has(record)) return scannedEvidenceBlock(record.label, type, content);
  if (evidenceTagOpenings(content).length === 0) {
    known.add(record);
    return scannedEvidenceBlock(record.label, type, content);
  }
  return evidenceBlock(record.label, type, content);
}

export const verdictBlock = (v: JudgeVerdictRecord): string => recordBlock(clean.verdict, v, 'verdict', verdictText);
export const turnBlock = (t: DebateTurnRecord): string => recordBlock(clean.turn, t, 'debate_turn', turnText);
export const revoteBlock = (r: RevoteRecord): string => recordBlock(clean.revote, r, 'revote', revoteText);

/** A record's call number: its call id is `<run id>-c<n>` (the engine's ledger); null for any other id. */
function callNumber(runId: string, callId: string): number | null {
  const prefix = `${runId}-c`;
  if (!callId.startsWith(prefix)) return null;
  const n = callId.slice(prefix.length);
  return /^[1-9]\d*$/.test(n) ? Number(n) : null;
}

type PanelRecords = Pick<PanelRunState, 'runId' | 'verdicts' | 'turns' | 'revotes'>;

function eachRecord(state: PanelRecords, visit: (known: WeakSet<object>, record: { callId: string }) => void): void {
  for (const v of state.verdicts) visit(clean.verdict, v);
  for (const t of state.turns) visit(clean.turn, t);
  for (const r of state.revotes) visit(clean.revote, r);
}

/** The call numbers of the state's records known to hold no tag opening: what the snapshot keeps. */
export function cleanEvidenceOf(state: PanelRecords): number[] {
  const out: number[] = [];
  eachRecord(state, (known, record) => {
    const n = known.has(record) ? callNumber(state.runId, record.callId) : null;
    if (n !== null) out.push(n);
  });
  return out;
}

/** Marks the records a snapshot says were found clean (`evidence_clean`); anything else is no mark. */
export function markCleanEvidence(state: PanelRecords, stored: unknown): void {
  if (!Array.isArray(stored) || stored.length === 0) return;
  const numbers = new Set(stored.filter((n): n is number => typeof n === 'number'));
  eachRecord(state, (known, record) => {
    const n = callNumber(state.runId, record.callId);
    if (n !== null && numbers.has(n)) known.add(record);
  });
}
