import type { JudgePairFigure, JudgeRole, JudgeVerdict, PanelQuality, Revote } from '@roundtable/contracts';
import { JUDGES } from '@roundtable/contracts';

/**
 * Panel verification (seed 003 "verification/"): the same functions gate a run at run time and
 * score the golden set in the eval tests, so a prompt change cannot pass one and fail the other.
 * Schema validation catches a missing field; these catch five judges saying one thing in five
 * wordings, evidence made of stock phrases, and a re-vote where everyone drifts together.
 */

/** Two judges whose concerns + evidence overlap this much are one lens, not two. */
export const LENS_COLLAPSE_JACCARD = 0.85;
/** Two concerns inside one verdict this similar are the same concern said twice. */
export const DUPLICATE_CONCERN_JACCARD = 0.85;
/** A verdict whose evidence is more than this share stock phrases is weak. */
export const GENERIC_EVIDENCE_RATE = 0.4;
/** Five judges with one stance and scores within this spread are a uniform (bland) panel. */
export const UNIFORM_SCORE_SPREAD = 1;
/** A re-vote moves a score by at most this much. */
export const REVOTE_CAP = 3;
/** This many judges moving by the same non-zero delta is herding, not persuasion. */
export const HERDING_MIN_JUDGES = 4;

/**
 * Phrases that sound like evidence and say nothing about this idea. Matched as whole words
 * inside a normalised evidence item.
 */
export const GENERIC_PHRASES: readonly string[] = [
  'huge market',
  'market is huge',
  'massive market',
  'big market',
  'growing market',
  'market is growing',
  'strong demand',
  'high demand',
  'everyone needs',
  'everybody needs',
  'everyone wants',
  'people want',
  'many people',
  'lots of people',
  'users love',
  'customers love',
  'no competition',
  'no competitors',
  'first mover',
  'game changer',
  'disruptive',
  'disrupt the industry',
  'paradigm shift',
  'huge potential',
  'lots of potential',
  'great potential',
  'significant opportunity',
  'big opportunity',
  'massive opportunity',
  'studies show',
  'research shows',
  'experts agree',
  'it is well known',
  'common sense',
  'obviously',
  'in my experience',
  'based on experience',
  'industry trends',
  'market trends',
  'best practices',
  'low hanging fruit',
  'no brainer',
  'it depends',
  'goes viral',
  'word of mouth',
  'ai is hot',
];

const STOPWORDS = new Set([
  'a', 'an', 'the', 'and', 'or', 'but', 'of', 'to', 'in', 'on', 'for', 'with', 'by', 'at', 'as', 'from', 'into', 'about',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'it', 'its', 'this', 'that', 'these', 'those', 'there', 'their',
  'they', 'them', 'we', 'our', 'you', 'your', 'i', 'my', 'will', 'would', 'can', 'could', 'should', 'may', 'might',
  'has', 'have', 'had', 'do', 'does', 'did', 'so', 'than', 'then', 'very', 'just', 'also',
]);

const words = (text: string): string[] => text.toLowerCase().split(/[^a-z0-9%$]+/).filter(Boolean);

/** Lower-case word tokens without function words; the unit every similarity here is computed on. */
export function tokenSet(text: string | readonly string[]): Set<string> {
  const joined = typeof text === 'string' ? text : text.join(' ');
  return new Set(words(joined).filter((w) => !STOPWORDS.has(w)));
}

/** |A ∩ B| / |A ∪ B| over normalised token sets; two empty texts share nothing (0). */
export function jaccard(a: string | readonly string[], b: string | readonly string[]): number {
  const x = tokenSet(a);
  const y = tokenSet(b);
  if (x.size === 0 && y.size === 0) return 0;
  let shared = 0;
  for (const t of x) if (y.has(t)) shared += 1;
  return shared / (x.size + y.size - shared);
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** What a judge's lens is made of: its concerns and its evidence. */
function lensText(v: JudgeVerdict): string[] {
  return [...v.top_concerns, ...v.evidence];
}

/** Judges in speaker order, so figures and reasons read the same every time. */
function inSpeakerOrder(verdicts: readonly JudgeVerdict[]): JudgeVerdict[] {
  return [...verdicts].sort((a, b) => JUDGES.indexOf(a.judge) - JUDGES.indexOf(b.judge));
}

/** Jaccard of every pair of judges' concerns + evidence, in speaker order. */
export function pairwiseJaccard(verdicts: readonly JudgeVerdict[]): JudgePairFigure[] {
  const vs = inSpeakerOrder(verdicts);
  const pairs: JudgePairFigure[] = [];
  for (let i = 0; i < vs.length; i += 1) {
    for (let j = i + 1; j < vs.length; j += 1) {
      pairs.push({ a: vs[i].judge, b: vs[j].judge, jaccard: jaccard(lensText(vs[i]), lensText(vs[j])) });
    }
  }
  return pairs;
}

/** Pairs of judges whose lenses collapsed into one (Jaccard ≥ 0.85). */
export function lensCollapse(verdicts: readonly JudgeVerdict[]): JudgePairFigure[] {
  return pairwiseJaccard(verdicts).filter((p) => p.jaccard >= LENS_COLLAPSE_JACCARD);
}

const normalisedPhrase = (text: string): string => ` ${words(text).join(' ')} `;
const GENERIC_NORMALISED = GENERIC_PHRASES.map(normalisedPhrase);

export function isGenericEvidence(item: string): boolean {
  const text = normalisedPhrase(item);
  return GENERIC_NORMALISED.some((p) => text.includes(p));
}

/** Share of a verdict's evidence items that are stock phrases; no evidence at all counts as 1. */
export function genericEvidenceRate(verdict: Pick<JudgeVerdict, 'evidence'>): number {
  if (verdict.evidence.length === 0) return 1;
  return verdict.evidence.filter(isGenericEvidence).length / verdict.evidence.length;
}

/** Pairs of concerns inside one verdict that say the same thing (Jaccard ≥ 0.85). */
export function duplicateConcerns(verdict: Pick<JudgeVerdict, 'top_concerns'>): [string, string][] {
  const cs = verdict.top_concerns;
  const out: [string, string][] = [];
  for (let i = 0; i < cs.length; i += 1) {
    for (let j = i + 1; j < cs.length; j += 1) {
      if (jaccard(cs[i], cs[j]) >= DUPLICATE_CONCERN_JACCARD) out.push([cs[i], cs[j]]);
    }
  }
  return out;
}

/** Every judge shares one stance and the scores sit within a point of each other. */
export function isUniformPanel(verdicts: readonly JudgeVerdict[]): boolean {
  if (verdicts.length < 2) return false;
  const scores = verdicts.map((v) => v.score);
  const sameStance = verdicts.every((v) => v.stance === verdicts[0].stance);
  return sameStance && Math.max(...scores) - Math.min(...scores) <= UNIFORM_SCORE_SPREAD;
}

const pct = (n: number): string => `${Math.round(n * 100)} %`;

/**
 * The panel gate. collapsed (two lenses are one: the run fails with these figures) beats weak
 * (some judge's own verdict is generic or repetitive: those judges are asked again) beats
 * uniform (bland consensus: the run finishes flagged low-confidence) beats ok.
 */
export function assessPanel(verdicts: readonly JudgeVerdict[]): PanelQuality {
  const vs = inSpeakerOrder(verdicts);
  const pairs = pairwiseJaccard(vs);
  const collapsed = pairs.filter((p) => p.jaccard >= LENS_COLLAPSE_JACCARD);
  const reasons: string[] = [];
  for (const p of collapsed) {
    reasons.push(`lens collapse: ${p.a} and ${p.b} overlap ${round3(p.jaccard)} (Jaccard ≥ ${LENS_COLLAPSE_JACCARD}) on concerns + evidence`);
  }

  const generic_rates: Partial<Record<JudgeRole, number>> = {};
  const duplicates: Partial<Record<JudgeRole, [string, string][]>> = {};
  const weak: JudgeRole[] = [];
  for (const v of vs) {
    const rate = genericEvidenceRate(v);
    const dups = duplicateConcerns(v);
    generic_rates[v.judge] = round3(rate);
    duplicates[v.judge] = dups;
    if (rate > GENERIC_EVIDENCE_RATE) {
      weak.push(v.judge);
      reasons.push(
        v.evidence.length === 0
          ? `${v.judge}: no evidence at all`
          : `${v.judge}: ${pct(rate)} of the evidence is stock phrases (> ${pct(GENERIC_EVIDENCE_RATE)})`,
      );
    }
    if (dups.length > 0) {
      if (!weak.includes(v.judge)) weak.push(v.judge);
      reasons.push(`${v.judge}: the same concern twice: ${dups.map(([a, b]) => `"${a}" / "${b}"`).join('; ')}`);
    }
  }

  const uniform = isUniformPanel(vs);
  if (uniform) {
    const scores = vs.map((v) => v.score);
    reasons.push(`uniform panel: every judge is "${vs[0].stance}" and the scores span ${Math.min(...scores)}–${Math.max(...scores)}`);
  }

  const status: PanelQuality['status'] = collapsed.length ? 'collapsed' : weak.length ? 'weak' : uniform ? 'uniform' : 'ok';
  return {
    status,
    figures: {
      max_jaccard: round3(pairs.reduce((m, p) => Math.max(m, p.jaccard), 0)),
      pairs: pairs.map((p) => ({ ...p, jaccard: round3(p.jaccard) })),
      generic_rates,
      duplicates,
    },
    weak_judges: weak,
    reasons,
  };
}

/** The re-voted score with its move capped at ±3 (and kept inside 1..10). */
export function clampRevote(previous: number, score: number): number {
  const capped = Math.max(previous - REVOTE_CAP, Math.min(previous + REVOTE_CAP, score));
  return Math.max(1, Math.min(10, capped));
}

export interface RevoteAssessment {
  /** ≥ 4 judges moved by the same non-zero (capped) delta. */
  herding: boolean;
  /** The shared delta and who moved by it, when herding. */
  herd: { delta: number; judges: JudgeRole[] } | null;
  /** Judges whose score moved without `changed` and a change_reason. */
  unexplained: JudgeRole[];
  /** Judges who asked for a move beyond ±3 and were capped. */
  capped: JudgeRole[];
  /** Capped delta per judge that has a baseline. */
  deltas: Partial<Record<JudgeRole, number>>;
}

/** Re-vote quality against the baseline scores; revotes carry the judge's raw (uncapped) score. */
export function assessRevote(baseline: Partial<Record<JudgeRole, number>>, revotes: readonly Revote[]): RevoteAssessment {
  const deltas: Partial<Record<JudgeRole, number>> = {};
  const unexplained: JudgeRole[] = [];
  const capped: JudgeRole[] = [];
  for (const r of revotes) {
    const previous = baseline[r.judge];
    if (previous === undefined) continue;
    deltas[r.judge] = clampRevote(previous, r.score) - previous;
    if (Math.abs(r.score - previous) > REVOTE_CAP) capped.push(r.judge);
    if (r.score !== previous && !(r.changed && r.change_reason?.trim())) unexplained.push(r.judge);
  }
  const byDelta = new Map<number, JudgeRole[]>();
  for (const [judge, d] of Object.entries(deltas) as [JudgeRole, number][]) {
    if (d !== 0) byDelta.set(d, [...(byDelta.get(d) ?? []), judge]);
  }
  let herd: RevoteAssessment['herd'] = null;
  for (const [delta, judges] of byDelta) {
    if (judges.length >= HERDING_MIN_JUDGES && (!herd || judges.length > herd.judges.length)) {
      herd = { delta, judges: [...judges].sort((a, b) => JUDGES.indexOf(a) - JUDGES.indexOf(b)) };
    }
  }
  return { herding: herd !== null, herd, unexplained, capped, deltas };
}
