import type { BuildRunState, CritiqueRecord } from './build-types';
import { latestImplementation } from './build-step';

/**
 * The optional second review (seed §4 `agents.reviewer`, issue 21 item 7): once the validator
 * has reviewed an implementation, the reviewer reviews the same implementation from the same
 * artifact-only pack, still in the REVIEW stage. Its review is labelled after the validator's
 * it sits beside — R1 → R1r — so the pair reads as one, the label alone tells the two apart
 * (the critiques table has no column for who wrote a review, and a state rebuilt from it keeps
 * the label), and no counter is spent. It is data for the synthesizer and the report, never a
 * branch: whatever its verdict, the run goes on to SYNTHESIZE.
 */

const SECOND_REVIEW = /^R\d+r$/;

/** The second review's label beside validator review `validatorLabel` (R1 → R1r). */
export function secondReviewLabel(validatorLabel: string): string {
  return `${validatorLabel}r`;
}

export function isSecondReview(record: Pick<CritiqueRecord, 'label'>): boolean {
  return SECOND_REVIEW.test(record.label);
}

/** Whether this project names a reviewer at all. */
export function hasReviewer(state: Pick<BuildRunState, 'config'>): boolean {
  return state.config.agents.reviewer !== undefined;
}

/** The validator's latest review of the latest implementation, if it is recorded. */
export function validatorReviewOfLatest(state: BuildRunState): CritiqueRecord | undefined {
  const impl = latestImplementation(state);
  if (!impl) return undefined;
  return [...state.critiques].reverse().find((c) => c.targetKind === 'implementation' && c.targetLabel === impl.label && !isSecondReview(c));
}

/** In REVIEW: the validator has answered and the reviewer's second review of it is still to come. */
export function secondReviewPending(state: BuildRunState): boolean {
  if (state.stage !== 'REVIEW' || !hasReviewer(state)) return false;
  const review = validatorReviewOfLatest(state);
  return review !== undefined && !state.critiques.some((c) => c.label === secondReviewLabel(review.label));
}
