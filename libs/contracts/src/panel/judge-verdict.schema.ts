import { z } from 'zod';
import { Confidence } from '../agent/verdict.schema';
import { JudgeRole, JudgeScore } from './panel-vocabulary.schema';

export const Stance = z.enum(['for', 'against', 'mixed']);
export type Stance = z.infer<typeof Stance>;

/**
 * One judge's roast of the idea (seed 003 "Verdict"). Named JudgeVerdict because the build's
 * Verdict is the ACCEPT/REVISE/… enum. Whether five of these say different things is checked
 * on top of the schema by the panel quality gates, not here.
 */
export const JudgeVerdict = z.object({
  judge: JudgeRole,
  score: JudgeScore,
  stance: Stance,
  top_concerns: z
    .array(z.string().min(1))
    .min(1, 'top_concerns lists one to five concerns')
    .max(5, 'top_concerns lists one to five concerns'),
  evidence: z.array(z.string().min(1)),
  what_would_change_my_mind: z.string().min(1, 'what_would_change_my_mind names a fact or result that would move the score'),
  confidence: Confidence,
  /** The evidence ids of the prompt this verdict rests on (IE1, or a ledger entry's own id such as E3); an id the prompt did not show is refused. */
  cites: z.array(z.string().min(1)).max(20).optional(),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;
