import { z } from 'zod';
import { Confidence } from '../agent/verdict.schema';
import { PanelRecommendation } from './panel-vocabulary.schema';

const TopThree = (what: string) => z.array(z.string().min(1)).max(3, `${what} lists at most three items`);

/** The moderator's structured close of a panel: what the report and run_completed carry. */
export const ModeratorSynthesis = z.object({
  overall_recommendation: PanelRecommendation,
  confidence: Confidence,
  top_strengths: TopThree('top_strengths'),
  top_risks: TopThree('top_risks'),
  top_problems: TopThree('top_problems'),
  biggest_disagreement: z.string().min(1, 'biggest_disagreement names the judges and the point they split on'),
  recommended_experiment: z.string().min(1, 'recommended_experiment names the cheapest test that would settle it'),
});
export type ModeratorSynthesis = z.infer<typeof ModeratorSynthesis>;
