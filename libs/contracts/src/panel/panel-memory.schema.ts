import { z } from 'zod';
import { JudgeRole, PanelRecommendation } from './panel-vocabulary.schema';

/**
 * What an idea remembers of one panel on it (issue 23's memory): the verdict, the judges' final
 * scores, the top risks and what had changed in the worksheet since the version before. Compact
 * on purpose: a later panel on the idea is shown these, never an earlier panel's transcript.
 */
export const PanelMemory = z
  .object({
    run_id: z.string().min(1),
    /** The worksheet version that panel scored; null for an inline idea. */
    version: z.number().int().min(1).nullable(),
    recommendation: PanelRecommendation,
    confidence: z.number().min(0).max(1),
    scores: z.partialRecord(JudgeRole, z.number()),
    top_risks: z.array(z.string().min(1).max(500)).max(3),
    /** The worksheet fields changed since the version the panel before it scored (empty: the first, or nothing changed). */
    changed: z.array(z.string().min(1).max(100)).max(20),
  })
  .strict();
export type PanelMemory = z.infer<typeof PanelMemory>;
