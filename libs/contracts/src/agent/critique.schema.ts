import { z } from 'zod';
import { Confidence, Problem, Verdict } from './verdict.schema';
import { TradingCritique } from '../experiment/trading-critique.schema';

const CritiqueFields = z.object({
  proposal_id: z.string().min(1),
  verdict: Verdict,
  problems: z.array(Problem),
  counterarguments: z.array(z.string()),
  tests_required: z.array(z.string()),
  confidence: Confidence,
});

/**
 * Anti-sycophancy (seed §6): an ACCEPT with no problems must say what was checked, and a
 * verdict that blocks must say why. A reply breaking either gets a repair call.
 */
function critiqueRules(c: z.infer<typeof CritiqueFields>, ctx: z.RefinementCtx): void {
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
}

export const Critique = CritiqueFields.superRefine(critiqueRules);
export type Critique = z.infer<typeof Critique>;

/**
 * A build's critique in the trading domain (issue 24, `domain: trading`): the Critique, its
 * rules included, plus the fifteen-item checklist, every item answered (TradingCritique).
 */
export const CritiqueWithChecklist = CritiqueFields.extend({ trading_critique: TradingCritique }).superRefine(critiqueRules);
export type CritiqueWithChecklist = z.infer<typeof CritiqueWithChecklist>;

/** The checklist of a critique that has one (a trading build's), else undefined. */
export function checklistOf(body: unknown): TradingCritique | undefined {
  if (body === null || typeof body !== 'object' || !('trading_critique' in body)) return undefined;
  return (body as { trading_critique?: TradingCritique }).trading_critique;
}
