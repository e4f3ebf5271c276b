import { z } from 'zod';
import { Confidence, Verdict } from './verdict.schema';

export const Position = z.object({ agent_role: z.string().min(1), position: z.string().min(1) });
export type Position = z.infer<typeof Position>;

export const Disagreement = z.object({
  topic: z.string().min(1),
  positions: z.array(Position),
  resolved: z.boolean(),
  resolution: z.string().nullish(),
});
export type Disagreement = z.infer<typeof Disagreement>;

/** Disagreements are preserved, not collapsed; REJECT is a valid, expected outcome. */
export const Synthesis = z.object({
  what_was_built: z.string(),
  test_summary: z.string(),
  disagreements: z.array(Disagreement),
  remaining_risks: z.array(z.string()),
  recommended_next_experiment: z.string().nullish(),
  overall_verdict: Verdict,
  confidence: Confidence,
});
export type Synthesis = z.infer<typeof Synthesis>;
