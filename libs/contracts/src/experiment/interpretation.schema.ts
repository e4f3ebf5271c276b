import { z } from 'zod';
import { ExperimentDecision } from './experiment-decision';
import { criteriaOf, type Preregistration } from './preregistration.schema';
import { TradingCritique } from './trading-critique.schema';

/**
 * The interpreter's and the critic's replies in the experiment workflow (issue 24). The
 * interpreter reads each criterion against the metrics and says what it would decide; the
 * decision that counts is computed by decideExperiment, so a disagreement between the two is
 * something to show, not something the agent settles.
 */
export const CriterionReading = z.object({
  criterion_id: z.string().min(1, 'criterion_id is a criterion of the preregistration, e.g. S1 or F2'),
  holds: z.boolean({ error: 'holds is true or false: whether the criterion is met by the metrics' }),
  evidence: z.string().min(1, 'evidence says what in the metrics or the output shows it'),
});
export type CriterionReading = z.infer<typeof CriterionReading>;

export const Interpretation = z.object({
  readings: z.array(CriterionReading).min(1, 'readings reads every criterion of the preregistration, one each'),
  // What the interpreter would decide; compared with the computed decision, never used in its place.
  decision: ExperimentDecision,
  summary: z.string().min(1, 'summary says in a few sentences what the experiment showed'),
  caveats: z.array(z.string()).default([]),
});
export type Interpretation = z.infer<typeof Interpretation>;

/** The critic's review of an interpretation: whether it reads the metrics right, and where not. */
export const InterpretationReview = z.object({
  agrees: z.boolean({ error: 'agrees is true or false: whether the interpretation reads the results right' }),
  disagreements: z.array(z.string()).default([]),
  summary: z.string().min(1, 'summary says what the review found'),
});
export type InterpretationReview = z.infer<typeof InterpretationReview>;

// A trading experiment's interpreter and critic each answer the full checklist as well.
export const TradingInterpretation = Interpretation.extend({ trading_critique: TradingCritique });
export type TradingInterpretation = z.infer<typeof TradingInterpretation>;

export const TradingInterpretationReview = InterpretationReview.extend({ trading_critique: TradingCritique });
export type TradingInterpretationReview = z.infer<typeof TradingInterpretationReview>;

/**
 * What is wrong with an interpretation's readings, as one line for the repair call: criteria it
 * did not read, read more than once, or that the preregistration does not have. Null when it
 * reads each criterion exactly once.
 */
export function readingProblems(
  prereg: Pick<Preregistration, 'success_criteria' | 'failure_criteria'>,
  interpretation: Pick<Interpretation, 'readings'>,
): string | null {
  const ids = criteriaOf(prereg).map((c) => c.id);
  const read = interpretation.readings.map((r) => r.criterion_id);
  const unread = ids.filter((id) => !read.includes(id));
  const twice = [...new Set(read.filter((id, i) => read.indexOf(id) !== i))];
  const unknown = [...new Set(read.filter((id) => !ids.includes(id)))];
  const parts = [
    unread.length ? `not read: ${unread.join(', ')}` : '',
    twice.length ? `read more than once: ${twice.join(', ')}` : '',
    unknown.length ? `no such criterion: ${unknown.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? `${parts.join('; ')} (read each of ${ids.join(', ')} exactly once)` : null;
}
