import { z } from 'zod';
import { Verdict } from '../agent/verdict.schema';
import { JudgeRole } from '../panel/panel-vocabulary.schema';

/**
 * The bias audit across recorded runs (issue 25 §3): GET /v1/audit/bias, `roundtable audit bias`
 * and the workbench's /audit page. Computed by libs/workflow's biasAudit() from facts the api reads
 * out of the store; this is its reply. Flags come first so a reader sees them before the tables.
 */

/** What a flag says. never_revises / accepts_failures: a critic; herds: a panel judge; self_preference: a judging role. */
export const BiasFlagKind = z.enum(['never_revises', 'accepts_failures', 'herds', 'self_preference']);
export type BiasFlagKind = z.infer<typeof BiasFlagKind>;

export const BiasFlag = z.object({
  /** Who: `provider/model` for a critic, `provider/model (judge)` for a panel judge, the role for self-preference. */
  subject: z.string(),
  kind: BiasFlagKind,
  /** The figures behind the flag, in a sentence. */
  detail: z.string(),
});
export type BiasFlag = z.infer<typeof BiasFlag>;

/** A count out of a whole, and the share (null when the whole is 0). */
export const AuditRate = z.object({ count: z.number().int(), of: z.number().int(), rate: z.number().nullable() });
export type AuditRate = z.infer<typeof AuditRate>;

/** How many of each verdict of the vocabulary, every one present (an object with each verdict a property: OpenAPI validators want the names). */
export const VerdictCounts = z.object(Object.fromEntries(Verdict.options.map((v) => [v, z.number().int()])) as Record<Verdict, z.ZodNumber>);
export type VerdictCounts = z.infer<typeof VerdictCounts>;

/** One build critic (the `critic` role's provider/model) over every critique it wrote of a proposal. */
export const CriticAudit = z.object({
  subject: z.string(),
  provider: z.string(),
  model: z.string(),
  /** How many critiques it wrote. */
  verdicts: z.number().int(),
  /** Per verdict of the vocabulary (ACCEPT … NEEDS_EXPERIMENT), how many. */
  counts: VerdictCounts,
  accept: AuditRate,
  revise: AuditRate,
  reject: AuditRate,
  /** Its ACCEPTs followed, in the same run, by a test run that did not pass (exit code not 0). */
  accepts_then_failing_tests: AuditRate,
  /** Its ACCEPTs followed, in the same run, by a validator's or reviewer's verdict that was not ACCEPT. */
  accepts_then_failing_review: AuditRate,
  /** How many runs its critiques came from. */
  runs: z.number().int(),
});
export type CriticAudit = z.infer<typeof CriticAudit>;

/** A judge's scores: count, mean, range and a histogram over the panel's whole scale (1 … 10). */
export const ScoreDistribution = z.object({
  count: z.number().int(),
  mean: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  /** One entry per score of the scale, in order, zeros included. */
  histogram: z.array(z.object({ score: z.number().int(), count: z.number().int() })),
});
export type ScoreDistribution = z.infer<typeof ScoreDistribution>;

/** One panel judge: a provider/model in one judge role (vc, engineer …). */
export const JudgeAudit = z.object({
  subject: z.string(),
  provider: z.string(),
  model: z.string(),
  judge: JudgeRole,
  /** Every roast verdict it gave (retries of a weak panel included). */
  scores: ScoreDistribution,
  /** Its re-votes (appeals left out), and those whose nonzero move equals the move of three or more other judges of the same panel. */
  herd_moves: AuditRate,
  /** Between consecutive panels of the same idea (by version, then time): how many pairs, and the mean absolute change of its final score. */
  drift: z.object({ pairs: z.number().int(), mean_abs_change: z.number().nullable() }),
  panels: z.number().int(),
});
export type JudgeAudit = z.infer<typeof JudgeAudit>;

export const SelfPreferenceRole = z.enum(['critic', 'validator', 'reviewer']);
export type SelfPreferenceRole = z.infer<typeof SelfPreferenceRole>;

/**
 * A judging role of the build: its ACCEPT rate when the work it judged was written on its own
 * provider (the proposer's for a critique, the engineer's for a review) against another provider.
 */
export const SelfPreference = z.object({
  role: SelfPreferenceRole,
  same_provider: AuditRate,
  other_provider: AuditRate,
  /** same − other, when both have a rate. */
  difference: z.number().nullable(),
});
export type SelfPreference = z.infer<typeof SelfPreference>;

/** The thresholds the flags were raised with (libs/workflow bias-audit.ts says why each is what it is). */
export const BiasThresholds = z.object({
  never_revises_min_verdicts: z.number().int(),
  accepts_failures_min_count: z.number().int(),
  accepts_failures_min_rate: z.number(),
  herds_min_revotes: z.number().int(),
  herds_min_rate: z.number(),
  herd_min_other_judges: z.number().int(),
  self_preference_min_n: z.number().int(),
  self_preference_min_difference: z.number(),
});
export type BiasThresholds = z.infer<typeof BiasThresholds>;

export const BiasAudit = z.object({
  flags: z.array(BiasFlag),
  /** What was read: the project filter, the newest runs up to `run_limit`, and how many of them had critiques or panel scores. */
  scope: z.object({
    project: z.string().nullable(),
    run_limit: z.number().int(),
    runs: z.number().int(),
    /** Whether more runs matched than were read (the oldest were left out). */
    truncated: z.boolean(),
    build_runs: z.number().int(),
    panel_runs: z.number().int(),
  }),
  critics: z.array(CriticAudit),
  judges: z.array(JudgeAudit),
  self_preference: z.array(SelfPreference),
  thresholds: BiasThresholds,
});
export type BiasAudit = z.infer<typeof BiasAudit>;
