import { z } from 'zod';
import { JudgeRole } from './panel-vocabulary.schema';

/** One speaker's message in one debate round; responds_to cites earlier labels (V1, D3 …). */
export const DebateTurn = z.object({
  speaker: JudgeRole,
  round: z.number().int().min(1),
  message: z.string().min(1, 'message is what the speaker says this turn'),
  responds_to: z.array(z.string().min(1)).optional(),
});
export type DebateTurn = z.infer<typeof DebateTurn>;
