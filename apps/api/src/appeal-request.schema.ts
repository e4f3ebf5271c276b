import { z } from 'zod';
import { EvidenceId, JUDGES, JudgeRole } from '@roundtable/contracts';
import { budgetCapsRequest } from './budget-caps.schema';

/**
 * The body of POST /v1/runs/:id/appeal: new evidence (plain text; it reaches the judges only
 * inside an evidence block) and/or entries of the idea's evidence ledger by id (`evidence_ids`,
 * for a panel run on an idea worksheet: the api turns each into "[E1] claim — source"), the judges who re-score, and optionally budget caps to raise
 * first (for an appeal the budget refused). Every message names its field, and an
 * unknown field is refused rather than ignored.
 */
export const AppealRequest = z
  .object(
    {
      evidence: z
        .array(z.string({ error: 'evidence items must be text' }).trim().min(1, 'evidence items must not be empty'), {
          error: 'evidence must be a list of text items, e.g. ["62 % of surveyed freelancers use no accounting suite"]',
        })
        .min(1, 'evidence must hold at least one item')
        .optional(),
      evidence_ids: z
        .array(EvidenceId, { error: 'evidence_ids must be a list of ledger entry ids, e.g. ["E1", "E2"]' })
        .min(1, 'evidence_ids must hold at least one id')
        .max(50, 'evidence_ids names at most 50 entries')
        .optional(),
      judges: z
        .array(z.enum(JudgeRole.options, { error: `judges must name judges: ${JUDGES.join(', ')}` }), {
          error: `judges must be a list of judges, e.g. ["vc", "competitor"] (known: ${JUDGES.join(', ')})`,
        })
        .min(1, 'judges must name at least one judge'),
      caps: budgetCapsRequest('an appeal').optional(),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys' && 'keys' in iss
          ? (iss.keys as string[]).map((k) => `${k} is not a field of an appeal (evidence, evidence_ids, judges, caps)`).join('; ')
          : 'the body must be a JSON object such as { "evidence": ["…"], "judges": ["vc"] }',
    },
  )
  .strict()
  .refine((a) => a.evidence !== undefined || a.evidence_ids !== undefined, {
    message: 'evidence must be a list of text items, e.g. ["62 % of surveyed freelancers use no accounting suite"], or evidence_ids a list of the idea\'s ledger entries, e.g. ["E1"]',
    path: ['evidence'],
  });
export type AppealRequest = z.infer<typeof AppealRequest>;
