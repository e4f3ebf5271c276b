import { z } from 'zod';
import { Confidence, Problem, Verdict } from './verdict.schema';

/** Evidence must point at something a reader can open: a file, a line or a test. */
const CITATION = /(::|\.\w{1,5}\b|:\d+|\btest\w*)/;

export const RequirementCheck = z.object({
  requirement: z.string().min(1),
  satisfied: z.boolean(),
  evidence: z
    .string()
    .min(1, 'evidence must cite a file/line or a test name')
    .refine((e) => CITATION.test(e), 'evidence must cite a file/line or a test name (e.g. test_dd.py::test_empty or dd.py:12)'),
});
export type RequirementCheck = z.infer<typeof RequirementCheck>;

/** The validator's verdict on an implementation; it sees the artifact and tests, not the argument. */
export const Review = z
  .object({
    implementation_id: z.string().min(1),
    verdict: Verdict,
    requirement_checks: z.array(RequirementCheck),
    problems: z.array(Problem),
    confidence: Confidence,
  })
  .superRefine((r, ctx) => {
    if (r.requirement_checks.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['requirement_checks'], message: 'a review must check every requirement' });
    }
  });
export type Review = z.infer<typeof Review>;
