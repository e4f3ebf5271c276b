import { z } from 'zod';
import { ScopeBudget } from '@roundtable/contracts';

/** The caps across runs (the policy's budgets.teams / budgets.projects): named when a request tries to raise one. */
const SCOPE_CAPS: ReadonlySet<string> = new Set(Object.keys(ScopeBudget.shape));

const positiveInt = (name: string) => z.number({ error: `${name} must be a number` }).int(`${name} must be a whole number`).positive(`${name} must be above 0`);

/**
 * `caps` of a resume or an appeal request: budget caps to raise, with the names and bounds of
 * the project config's budget. An unknown cap is refused (named, with the request it is not a
 * field of), so a typo cannot pass silently.
 */
export function budgetCapsRequest(requestName: string) {
  return z
    .object(
      {
        max_calls: positiveInt('caps.max_calls').optional(),
        max_tokens: positiveInt('caps.max_tokens').optional(),
        max_cost_usd: z.number({ error: 'caps.max_cost_usd must be a number' }).positive('caps.max_cost_usd must be above 0').optional(),
        max_seconds: z.number({ error: 'caps.max_seconds must be a number' }).positive('caps.max_seconds must be above 0').optional(),
        max_rounds: positiveInt('caps.max_rounds').optional(),
        max_fix_rounds: z
          .number({ error: 'caps.max_fix_rounds must be a number' })
          .int('caps.max_fix_rounds must be a whole number')
          .min(0, 'caps.max_fix_rounds must be 0 or more')
          .optional(),
      },
      {
        error: (iss) =>
          iss.code === 'unrecognized_keys' && 'keys' in iss
            ? (iss.keys as string[])
                .map((k) =>
                  SCOPE_CAPS.has(k)
                    ? `caps.${k} is a team's or a project's cap across runs: the operator's policy sets it (budgets in ROUNDTABLE_POLICY), never ${requestName}`
                    : `caps.${k} is not a field of ${requestName}`,
                )
                .join('; ')
            : 'caps must be an object such as { "max_calls": 24 }',
      },
    )
    .strict();
}
