import { z } from 'zod';
import type { GoldenTranscript } from './panel-golden-idea';

/**
 * Golden set, tier 2 (seed 003: "a grader that flags any dimension drop ≥ 0.5"): the pure half of
 * `roundtable eval panel --grader <provider>`. A grader model reads each golden panel's
 * transcript and scores five dimensions 0–10; the scores are averaged per dimension over the set
 * and compared with the last stored baseline. Keyword matching is not the signal on purpose:
 * tier 1 holds the mechanical checks, this asks a model whether the panel reads well.
 */

export const GRADER_DIMENSIONS = ['lens_differentiation', 'revote_quality', 'debate_engagement', 'synthesis_faithfulness', 'appeal_discrimination'] as const;
export type GraderDimension = (typeof GRADER_DIMENSIONS)[number];

/** A drop of this much (or more) in a dimension's average against the baseline is flagged. */
export const GRADER_DROP_FLAG = 0.5;

const Score = z.number().min(0).max(10).nullable();

/** What the grader returns for one panel: null where the transcript has nothing to judge (no debate, no appeal). */
export const GraderScores = z
  .object({
    lens_differentiation: Score.describe('0-10: do the five judges argue from distinct lenses (money, build, product, user, rivals) with idea-specific evidence?'),
    revote_quality: Score.describe('0-10: do re-vote moves follow from the debate, each with a reason that cites it, and do unmoved judges have cause to stay? null when there was no re-vote'),
    debate_engagement: Score.describe('0-10: do turns answer earlier turns with new arguments rather than restating verdicts? null when there was no debate'),
    synthesis_faithfulness: Score.describe("0-10: does the moderator's synthesis reflect what the judges actually said, citing them, with a recommendation the scores support? null when there was no synthesis"),
    appeal_discrimination: Score.describe('0-10: did relevant appeal evidence move the judge it concerns, and irrelevant evidence leave the judge unmoved? null when there was no appeal'),
    notes: z.string().describe('one or two sentences on the weakest dimension'),
  })
  .strict();
export type GraderScores = z.infer<typeof GraderScores>;

/** The structured-output schema the grader is asked for. */
export const GRADER_JSON_SCHEMA = z.toJSONSchema(GraderScores, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

/** The last stored averages, written by `--write-baseline`. */
export const GraderBaseline = z
  .object({
    grader: z.string(),
    model: z.string(),
    recorded_at: z.string(),
    ideas: z.number().int().min(0),
    scores: z.record(z.enum(GRADER_DIMENSIONS), z.number().min(0).max(10).nullable()),
  })
  .strict();
export type GraderBaseline = z.infer<typeof GraderBaseline>;

const GRADER_SYSTEM = [
  'role: grader',
  'You are the grader of an idea-validation panel. Five judges (vc, engineer, pm, customer, competitor) each',
  'scored an idea 0-10 with concerns and evidence, debated in fixed order, re-voted (a move of at most 3, with a',
  'reason), and a moderator wrote a synthesis; some panels also had an appeal with new evidence to chosen judges.',
  'Score the panel, not the idea: a good panel can reject a bad idea. Score each dimension 0-10 (10 = exemplary),',
  'or null when the transcript has nothing for it (no debate, no re-vote, no synthesis, no appeal).',
  'Dimensions: lens_differentiation, revote_quality, debate_engagement, synthesis_faithfulness, appeal_discrimination.',
  'Reply with one JSON object with those five fields and a short `notes`.',
].join('\n');

const list = (items: readonly string[]) => items.map((i) => `  - ${i}`).join('\n');

/** The panel as a grader reads it: the idea, the verdicts, the debate, the re-vote, the synthesis, the appeal. */
export function graderTranscript(t: GoldenTranscript): string {
  const parts: string[] = [
    `# Idea: ${t.idea.title}`,
    t.idea.description,
    `Target user: ${t.idea.target_user}`,
    ...(t.idea.evidence.length ? ['Evidence given:', list(t.idea.evidence)] : []),
    '',
    '## Verdicts',
    ...t.verdicts.flatMap((v) => [
      `### ${v.judge}: ${v.score}/10, ${v.stance} (confidence ${v.confidence})`,
      'Concerns:',
      list(v.top_concerns),
      'Evidence:',
      list(v.evidence),
      `Would change my mind: ${v.what_would_change_my_mind}`,
    ]),
  ];
  parts.push('', '## Debate', ...(t.turns.length ? t.turns.map((d) => `- round ${d.round}, ${d.speaker}: ${d.message}`) : ['(none: the panel stopped after the verdicts)']));
  parts.push(
    '',
    '## Re-vote',
    ...(t.revotes.length ? t.revotes.map((r) => `- ${r.judge}: ${r.previous} -> ${r.score}${r.changed ? ` (${r.change_reason})` : ' (unchanged)'}`) : ['(none)']),
  );
  const m = t.moderator;
  parts.push(
    '',
    '## Moderator synthesis',
    ...(m
      ? [
          `Recommendation: ${m.overall_recommendation} (confidence ${m.confidence})`,
          'Strengths:',
          list(m.top_strengths),
          'Risks:',
          list(m.top_risks),
          'Problems:',
          list(m.top_problems),
          `Biggest disagreement: ${m.biggest_disagreement}`,
          `Recommended experiment: ${m.recommended_experiment}`,
        ]
      : ['(none)']),
  );
  if (t.appeal) {
    parts.push(
      '',
      '## Appeal',
      'New evidence:',
      list(t.appeal.evidence),
      ...t.appeal.rescored.map((r) => `- ${r.judge}: ${r.previous} -> ${r.score}${r.changed ? ` (${r.change_reason})` : ' (unchanged)'}`),
    );
  }
  return parts.join('\n');
}

/** The grader's messages for one golden panel. */
export function graderMessages(t: GoldenTranscript): { role: 'system' | 'user'; content: string }[] {
  return [
    { role: 'system', content: GRADER_SYSTEM },
    { role: 'user', content: `Grade this panel.\n\n${graderTranscript(t)}` },
  ];
}

export type GraderAverages = Record<GraderDimension, number | null>;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Each dimension's mean over the panels that had something for it (null scores left out), to two decimals. */
export function averageScores(scores: readonly GraderScores[]): GraderAverages {
  return Object.fromEntries(
    GRADER_DIMENSIONS.map((d) => {
      const xs = scores.map((s) => s[d]).filter((x): x is number => x !== null);
      return [d, xs.length ? round2(xs.reduce((a, b) => a + b, 0) / xs.length) : null];
    }),
  ) as GraderAverages;
}

export interface GraderRow {
  dimension: GraderDimension;
  baseline: number | null;
  now: number | null;
  /** now − baseline, to two decimals; null when either side is missing. */
  delta: number | null;
  /** now ≤ baseline − 0.5. */
  flagged: boolean;
}

/** Each dimension against the baseline; a drop of GRADER_DROP_FLAG or more is flagged (compared in hundredths, so 0.5 is 0.5). */
export function compareWithBaseline(now: GraderAverages, baseline: GraderAverages | null): GraderRow[] {
  return GRADER_DIMENSIONS.map((dimension) => {
    const b = baseline?.[dimension] ?? null;
    const n = now[dimension];
    const delta = b === null || n === null ? null : round2(n - b);
    return { dimension, baseline: b, now: n, delta, flagged: delta !== null && Math.round(delta * 100) <= -Math.round(GRADER_DROP_FLAG * 100) };
  });
}
