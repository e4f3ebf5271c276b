import { z } from 'zod';
import { Confidence, Problem, Verdict } from './verdict.schema';

/**
 * Anti-sycophancy (seed §6): an ACCEPT with no problems must say what was checked, and a
 * verdict that blocks must say why. A reply breaking either gets a repair call.
 */
export const Critique = z
  .object({
    proposal_id: z.string().min(1),
    verdict: Verdict,
    problems: z.array(Problem),
    counterarguments: z.array(z.string()),
    tests_required: z.array(z.string()),
    confidence: Confidence,
  })
  .superRefine((c, ctx) => {
    if (c.verdict === 'ACCEPT' && c.problems.length === 0 && c.counterarguments.filter((s) => s.trim()).length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['counterarguments'],
        message: 'an ACCEPT with zero problems must state in counterarguments what was checked',
      });
    }
    if ((c.verdict === 'REVISE' || c.verdict === 'REJECT') && c.problems.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['problems'],
        message: `a ${c.verdict} verdict must list at least one problem`,
      });
    }
  });
export type Critique = z.infer<typeof Critique>;
