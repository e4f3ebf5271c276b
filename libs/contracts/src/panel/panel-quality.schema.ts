import { z } from 'zod';
import { JudgeRole } from './panel-vocabulary.schema';

/**
 * The panel quality figures (seed 003 "verification/"): measured by the workflow's shared
 * verification module at run time and by the eval tests, carried on roast_panel_completed
 * and run_completed so the report, the UI and the evals read the same numbers.
 */
export const PanelQualityStatus = z.enum(['ok', 'weak', 'uniform', 'collapsed']);
export type PanelQualityStatus = z.infer<typeof PanelQualityStatus>;

export const JudgePairFigure = z.object({ a: JudgeRole, b: JudgeRole, jaccard: z.number().min(0).max(1) });
export type JudgePairFigure = z.infer<typeof JudgePairFigure>;

export const PanelQuality = z.object({
  status: PanelQualityStatus,
  figures: z.object({
    /** Highest Jaccard similarity of two judges' concerns + evidence. */
    max_jaccard: z.number().min(0).max(1),
    /** Every pair of judges, in speaker order. */
    pairs: z.array(JudgePairFigure),
    /** Share of each judge's evidence items that are stock phrases. */
    generic_rates: z.partialRecord(JudgeRole, z.number().min(0).max(1)),
    /** Near-identical concerns inside one judge's verdict, as pairs of concern texts. */
    duplicates: z.partialRecord(JudgeRole, z.array(z.tuple([z.string(), z.string()]))),
  }),
  /** Judges whose own verdict is weak (generic evidence, repeated concerns): the ones a retry asks again. */
  weak_judges: z.array(JudgeRole),
  reasons: z.array(z.string()),
});
export type PanelQuality = z.infer<typeof PanelQuality>;

/** Something the panel finished with but a reader should know (herding, unexplained moves …). */
export const PanelWarningKind = z.enum([
  'uniform',
  'herding',
  'unexplained',
  'revote_capped',
  'revote_failed',
  'verdict_dropped',
  'appeal_failed',
  'appeal_refused',
]);
export type PanelWarningKind = z.infer<typeof PanelWarningKind>;

export const PanelWarning = z.object({
  kind: PanelWarningKind,
  detail: z.string(),
  judges: z.array(JudgeRole).optional(),
});
export type PanelWarning = z.infer<typeof PanelWarning>;
