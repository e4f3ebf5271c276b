import { z } from 'zod';
import { Confidence } from './verdict.schema';

export const CriticismResponse = z.object({
  problem: z.string().min(1),
  action: z.enum(['fixed', 'rejected', 'deferred']),
  reason: z.string().min(1),
});
export type CriticismResponse = z.infer<typeof CriticismResponse>;

/** Written by the proposer and, with responses_to_criticism, by the reviser. */
export const Proposal = z.object({
  proposal_id: z.string().min(1),
  revision_of: z.string().nullish(),
  claim: z.string().min(1),
  approach: z.string().min(1),
  assumptions: z.array(z.string()),
  evidence: z.array(z.string()),
  risks: z.array(z.string()),
  tests_required: z.array(z.string().min(1)).min(1, 'tests_required must list at least one concrete, checkable test'),
  responses_to_criticism: z.array(CriticismResponse).default([]),
  confidence: Confidence,
});
export type Proposal = z.infer<typeof Proposal>;
