import { z } from 'zod';
import { Confidence } from '../agent/verdict.schema';
import { JudgeRole, JudgeScore } from './panel-vocabulary.schema';

/**
 * A judge's score after the debate (or an appeal). A change has to say why: `changed` with no
 * change_reason fails the schema and gets a repair call. Whether the score really moved is
 * only known against the judge's previous score, so the workflow checks that side too.
 */
export const Revote = z
  .object({
    judge: JudgeRole,
    score: JudgeScore,
    changed: z.boolean(),
    change_reason: z.string().nullish(),
    confidence: Confidence,
    /** The evidence ids this score rests on (an appeal's new evidence, a ledger entry's own id such as E3); an id the prompt did not show is refused. */
    cites: z.array(z.string().min(1)).max(20).optional(),
  })
  .superRefine((r, ctx) => {
    if (r.changed && !r.change_reason?.trim()) {
      ctx.addIssue({ code: 'custom', path: ['change_reason'], message: 'a changed score must give its change_reason' });
    }
  });
export type Revote = z.infer<typeof Revote>;
