import {
  type AuditRate,
  type BiasAudit,
  type BiasFlag,
  type CriticAudit,
  type JudgeAudit,
  JudgeScore,
  type JudgeRole,
  type SelfPreference,
  SelfPreferenceRole,
  type ScoreDistribution,
  Verdict,
} from '@roundtable/contracts';
import { HERDING_MIN_JUDGES } from './panel-quality';

/**
 * The bias audit across recorded runs (issue 25 §3; seed 000 §10 "flag critics that never
 * REVISE"). Pure: the api reads the facts out of the store (apps/api/src/audit/) and this turns
 * them into the report. Where one panel's herding is checked inside the run (panel-quality.ts),
 * this looks at the same judges and critics over many runs, where a habit shows.
 */

/**
 * A critic with at least this many verdicts and not one REVISE or REJECT never revises. Below it
 * an all-ACCEPT record is chance: a critic that accepts 70 % of good proposals still gives four
 * ACCEPTs in a row one time in four, and five one time in six.
 */
export const NEVER_REVISES_MIN_VERDICTS = 5;
/** At least this many ACCEPTs followed by failing tests … */
export const ACCEPTS_FAILURES_MIN_COUNT = 3;
/** … that are at least this share of its ACCEPTs: half its ACCEPTs say nothing about whether the code will pass. */
export const ACCEPTS_FAILURES_MIN_RATE = 0.5;
/** A judge is judged on herding only after this many re-votes: fewer is one or two panels' worth. */
export const HERDS_MIN_REVOTES = 5;
/** At least this share of its re-votes moved with the herd: most of its moves are the crowd's, not its own. */
export const HERDS_MIN_RATE = 0.6;
/** A move is the herd's when this many other judges of the panel moved by the same nonzero delta (the in-panel rule, panel-quality.ts, less the judge itself). */
export const HERD_MIN_OTHER_JUDGES = HERDING_MIN_JUDGES - 1;
/** Self-preference is only measured when both sides hold at least this many judgements. */
export const SELF_PREFERENCE_MIN_N = 5;
/** … and flagged when the same-provider ACCEPT rate beats the other by this much: a quarter of all verdicts is no rounding. */
export const SELF_PREFERENCE_MIN_DIFFERENCE = 0.25;

/** A critique or a review, as the critiques row and its calls recorded it. */
export interface CritiqueFact {
  runId: string;
  /** agent_calls.seq of the call that wrote it: its place in the run. */
  seq: number;
  /** The writing call's role: critic (of a proposal), validator or reviewer (of an implementation). */
  role: string;
  provider: string;
  model: string;
  targetKind: 'proposal' | 'implementation';
  verdict: Verdict;
  /** The provider of the call that wrote the judged work (the proposal's, the implementation's); null when not recorded. */
  authorProvider: string | null;
}

/** A finished test run: its place in the run (the seq of the call that wrote the implementation it tested), and whether it passed (exit 0, as the build reads it). */
export interface TestRunFact {
  runId: string;
  seq: number;
  passed: boolean;
}

/** One judge's roast verdict in a panel. */
export interface JudgeScoreFact {
  runId: string;
  seq: number;
  judge: JudgeRole;
  provider: string;
  model: string;
  score: number;
}

/** One judge's re-vote (an appeal's re-score is not one): the score it started from and the score that counts. */
export interface RevoteFact extends JudgeScoreFact {
  previous: number;
}

/** A panel run, and the idea version it judged, if any. */
export interface PanelRunFact {
  runId: string;
  createdAt: string;
  ideaId: string | null;
  ideaVersion: number | null;
}

export interface BiasAuditFacts {
  scope: { project: string | null; runLimit: number; runs: number; truncated: boolean };
  critiques: readonly CritiqueFact[];
  testRuns: readonly TestRunFact[];
  verdicts: readonly JudgeScoreFact[];
  revotes: readonly RevoteFact[];
  panels: readonly PanelRunFact[];
}

const SCORE_MIN = JudgeScore.minValue ?? 1;
const SCORE_MAX = JudgeScore.maxValue ?? 10;

const round = (n: number) => Math.round(n * 1000) / 1000;
const rateOf = (count: number, of: number): AuditRate => ({ count, of, rate: of === 0 ? null : round(count / of) });
const pct = (r: number | null) => (r === null ? '-' : `${Math.round(r * 100)} %`);

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    const list = m.get(k);
    if (list) list.push(t);
    else m.set(k, [t]);
  }
  return m;
}

export const criticSubject = (f: { provider: string; model: string }) => `${f.provider}/${f.model}`;
export const judgeSubject = (f: { provider: string; model: string; judge: JudgeRole }) => `${f.provider}/${f.model} (${f.judge})`;

/** The report: flags first, then per critic, per judge, and self-preference per judging role. */
export function biasAudit(facts: BiasAuditFacts): BiasAudit {
  const critics = criticAudits(facts);
  const judges = judgeAudits(facts);
  const selfPreference = selfPreferenceOf(facts.critiques);
  const flags: BiasFlag[] = [...critics.flatMap(criticFlags), ...judges.flatMap(judgeFlags), ...selfPreference.flatMap(selfPreferenceFlags)];
  return {
    flags,
    scope: {
      project: facts.scope.project,
      run_limit: facts.scope.runLimit,
      runs: facts.scope.runs,
      truncated: facts.scope.truncated,
      build_runs: new Set(facts.critiques.map((c) => c.runId)).size,
      panel_runs: new Set(facts.verdicts.map((v) => v.runId)).size,
    },
    critics,
    judges,
    self_preference: selfPreference,
    thresholds: {
      never_revises_min_verdicts: NEVER_REVISES_MIN_VERDICTS,
      accepts_failures_min_count: ACCEPTS_FAILURES_MIN_COUNT,
      accepts_failures_min_rate: ACCEPTS_FAILURES_MIN_RATE,
      herds_min_revotes: HERDS_MIN_REVOTES,
      herds_min_rate: HERDS_MIN_RATE,
      herd_min_other_judges: HERD_MIN_OTHER_JUDGES,
      self_preference_min_n: SELF_PREFERENCE_MIN_N,
      self_preference_min_difference: SELF_PREFERENCE_MIN_DIFFERENCE,
    },
  };
}

// ---- critics ----

function criticAudits(facts: BiasAuditFacts): CriticAudit[] {
  const critiques = facts.critiques.filter((c) => c.role === 'critic' && c.targetKind === 'proposal');
  const testsByRun = groupBy(facts.testRuns, (t) => t.runId);
  const reviewsByRun = groupBy(
    facts.critiques.filter((c) => c.targetKind === 'implementation'),
    (c) => c.runId,
  );
  return [...groupBy(critiques, criticSubject)]
    .map(([subject, own]): CriticAudit => {
      const counts = Object.fromEntries(Verdict.options.map((v) => [v, own.filter((c) => c.verdict === v).length])) as Record<Verdict, number>;
      const accepts = own.filter((c) => c.verdict === 'ACCEPT');
      const failingTests = accepts.filter((a) => (testsByRun.get(a.runId) ?? []).some((t) => t.seq > a.seq && !t.passed)).length;
      const failingReview = accepts.filter((a) => (reviewsByRun.get(a.runId) ?? []).some((r) => r.seq > a.seq && r.verdict !== 'ACCEPT')).length;
      return {
        subject,
        provider: own[0].provider,
        model: own[0].model,
        verdicts: own.length,
        counts,
        accept: rateOf(counts.ACCEPT, own.length),
        revise: rateOf(counts.REVISE, own.length),
        reject: rateOf(counts.REJECT, own.length),
        accepts_then_failing_tests: rateOf(failingTests, accepts.length),
        accepts_then_failing_review: rateOf(failingReview, accepts.length),
        runs: new Set(own.map((c) => c.runId)).size,
      };
    })
    .sort((a, b) => b.verdicts - a.verdicts || a.subject.localeCompare(b.subject));
}

function criticFlags(c: CriticAudit): BiasFlag[] {
  const flags: BiasFlag[] = [];
  if (c.verdicts >= NEVER_REVISES_MIN_VERDICTS && c.revise.count === 0 && c.reject.count === 0) {
    flags.push({ subject: c.subject, kind: 'never_revises', detail: `${c.verdicts} verdicts over ${c.runs} runs, ${c.accept.count} ACCEPT, not one REVISE or REJECT` });
  }
  const f = c.accepts_then_failing_tests;
  if (f.count >= ACCEPTS_FAILURES_MIN_COUNT && f.rate !== null && f.rate >= ACCEPTS_FAILURES_MIN_RATE) {
    flags.push({ subject: c.subject, kind: 'accepts_failures', detail: `${f.count} of its ${f.of} ACCEPTs (${pct(f.rate)}) were followed by failing tests in the same run` });
  }
  return flags;
}

// ---- judges ----

function distributionOf(scores: readonly number[]): ScoreDistribution {
  const histogram = [];
  for (let s = SCORE_MIN; s <= SCORE_MAX; s++) histogram.push({ score: s, count: scores.filter((x) => x === s).length });
  if (!scores.length) return { count: 0, mean: null, min: null, max: null, histogram };
  return { count: scores.length, mean: round(scores.reduce((a, b) => a + b, 0) / scores.length), min: Math.min(...scores), max: Math.max(...scores), histogram };
}

/** The latest fact per judge in one run (a judge asked twice counts once, as its latest answer). */
function latestPerJudge<T extends JudgeScoreFact>(facts: readonly T[]): Map<JudgeRole, T> {
  const m = new Map<JudgeRole, T>();
  for (const f of [...facts].sort((a, b) => a.seq - b.seq)) m.set(f.judge, f);
  return m;
}

/** Whether a judge's re-vote moved with the herd: a nonzero move that at least HERD_MIN_OTHER_JUDGES other judges of its panel made too. */
function herdMoves(revotes: readonly RevoteFact[]): Map<RevoteFact, boolean> {
  const out = new Map<RevoteFact, boolean>();
  for (const inRun of groupBy(revotes, (r) => r.runId).values()) {
    const latest = [...latestPerJudge(inRun).values()];
    for (const r of latest) {
      const move = r.score - r.previous;
      const others = latest.filter((o) => o !== r && o.score - o.previous === move).length;
      out.set(r, move !== 0 && others >= HERD_MIN_OTHER_JUDGES);
    }
  }
  return out;
}

/**
 * Each judge's final score per panel (its re-vote if it gave one, else its latest verdict), and
 * the change between consecutive panels of the same idea, by version and then time.
 */
function driftsOf(facts: BiasAuditFacts): Map<string, number[]> {
  const finalScores = new Map<string, Map<string, number>>(); // runId → subject → score
  const revotesByRun = groupBy(facts.revotes, (r) => r.runId);
  for (const [runId, inRun] of groupBy(facts.verdicts, (v) => v.runId)) {
    // A judge's re-vote replaces its verdict, whichever model gave either.
    const final = new Map<JudgeRole, JudgeScoreFact>([...latestPerJudge(inRun), ...latestPerJudge(revotesByRun.get(runId) ?? [])]);
    finalScores.set(runId, new Map([...final.values()].map((f) => [judgeSubject(f), f.score])));
  }
  const changes = new Map<string, number[]>();
  const onIdeas = facts.panels.filter((p) => p.ideaId !== null && finalScores.has(p.runId));
  for (const panels of groupBy(onIdeas, (p) => p.ideaId!).values()) {
    const ordered = [...panels].sort((a, b) => (a.ideaVersion ?? 0) - (b.ideaVersion ?? 0) || a.createdAt.localeCompare(b.createdAt) || a.runId.localeCompare(b.runId));
    const last = new Map<string, number>();
    for (const p of ordered) {
      for (const [subject, score] of finalScores.get(p.runId)!) {
        const before = last.get(subject);
        if (before !== undefined) changes.set(subject, [...(changes.get(subject) ?? []), Math.abs(score - before)]);
        last.set(subject, score);
      }
    }
  }
  return changes;
}

function judgeAudits(facts: BiasAuditFacts): JudgeAudit[] {
  const herd = herdMoves(facts.revotes);
  const drifts = driftsOf(facts);
  const revotesBySubject = groupBy([...herd.keys()], judgeSubject);
  return [...groupBy(facts.verdicts, judgeSubject)]
    .map(([subject, own]): JudgeAudit => {
      const revotes = revotesBySubject.get(subject) ?? [];
      const changes = drifts.get(subject) ?? [];
      return {
        subject,
        provider: own[0].provider,
        model: own[0].model,
        judge: own[0].judge,
        scores: distributionOf(own.map((v) => v.score)),
        herd_moves: rateOf(revotes.filter((r) => herd.get(r)).length, revotes.length),
        drift: { pairs: changes.length, mean_abs_change: changes.length ? round(changes.reduce((a, b) => a + b, 0) / changes.length) : null },
        panels: new Set(own.map((v) => v.runId)).size,
      };
    })
    .sort((a, b) => a.judge.localeCompare(b.judge) || a.subject.localeCompare(b.subject));
}

function judgeFlags(j: JudgeAudit): BiasFlag[] {
  const h = j.herd_moves;
  if (h.of >= HERDS_MIN_REVOTES && h.rate !== null && h.rate >= HERDS_MIN_RATE) {
    return [{ subject: j.subject, kind: 'herds', detail: `${h.count} of its ${h.of} re-votes (${pct(h.rate)}) made the same move as ${HERD_MIN_OTHER_JUDGES} or more other judges` }];
  }
  return [];
}

// ---- self-preference ----

function selfPreferenceOf(critiques: readonly CritiqueFact[]): SelfPreference[] {
  return SelfPreferenceRole.options.flatMap((role): SelfPreference[] => {
    const judged = critiques.filter((c) => c.role === role && c.authorProvider !== null);
    if (!judged.length) return [];
    const same = judged.filter((c) => c.authorProvider === c.provider);
    const other = judged.filter((c) => c.authorProvider !== c.provider);
    const sameRate = rateOf(same.filter((c) => c.verdict === 'ACCEPT').length, same.length);
    const otherRate = rateOf(other.filter((c) => c.verdict === 'ACCEPT').length, other.length);
    return [
      {
        role,
        same_provider: sameRate,
        other_provider: otherRate,
        difference: sameRate.rate === null || otherRate.rate === null ? null : round(sameRate.rate - otherRate.rate),
      },
    ];
  });
}

function selfPreferenceFlags(s: SelfPreference): BiasFlag[] {
  if (s.same_provider.of < SELF_PREFERENCE_MIN_N || s.other_provider.of < SELF_PREFERENCE_MIN_N || s.difference === null) return [];
  if (s.difference < SELF_PREFERENCE_MIN_DIFFERENCE) return [];
  return [
    {
      subject: s.role,
      kind: 'self_preference',
      detail: `ACCEPT ${pct(s.same_provider.rate)} of ${s.same_provider.of} when the author is on its own provider, ${pct(s.other_provider.rate)} of ${s.other_provider.of} otherwise`,
    },
  ];
}
