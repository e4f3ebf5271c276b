import { z } from 'zod';
import { ModeratorSynthesis } from './moderator-synthesis.schema';
import { PanelQuality, PanelWarning } from './panel-quality.schema';
import { JudgeRole, JudgeScore, PanelRecommendation } from './panel-vocabulary.schema';

/** What a finished panel run reports on run_completed: the synthesis and the quality figures. */
export const PanelCompletion = z.object({
  recommendation: PanelRecommendation.nullable(),
  /** null: a fact-only close, no model wrote the synthesis. */
  synthesis: ModeratorSynthesis.nullable(),
  partial: z.boolean(),
  quality: PanelQuality.nullable(),
  /** A uniform panel (bland consensus) finishes, flagged as low confidence. */
  low_confidence: z.boolean(),
  /** Final scores per judge: after the re-vote when there was one. */
  scores: z.partialRecord(JudgeRole, JudgeScore),
  warnings: z.array(PanelWarning),
});
export type PanelCompletion = z.infer<typeof PanelCompletion>;
