import { z } from 'zod';

export const Verdict = z.enum(['ACCEPT', 'REVISE', 'REJECT', 'NEEDS_EVIDENCE', 'NEEDS_EXPERIMENT']);
export type Verdict = z.infer<typeof Verdict>;

export const Severity = z.enum(['blocker', 'major', 'minor']);
export type Severity = z.infer<typeof Severity>;

/** Confidence is a probability; a model that says 1.2 or 80 is corrected by a repair call. */
export const Confidence = z.number().min(0, 'confidence must be in [0,1]').max(1, 'confidence must be in [0,1]');

export const Problem = z.object({
  severity: Severity,
  description: z.string().min(1),
  location: z.string().nullish(),
});
export type Problem = z.infer<typeof Problem>;
