import { z } from 'zod';
import { ScopeBudget } from '../policy/operator-policy.schema';

/**
 * GET /v1/usage (issue 26): what was spent, by team and project, since a time (default: the
 * start of today, UTC), with the operator's caps across runs beside each row. A token that is
 * not an admin sees its own team's rows only.
 */
export const UsageInFlight = z.object({
  calls: z.number().int().describe('calls queued or running now (their reservations), whenever they started'),
  tokens: z.number().int().describe('the tokens those calls hold at worst (prompt estimate + max output tokens)'),
  cost_usd: z.number().describe('that worst case at the table price (unpriced models hold nothing)'),
});

export const UsageRow = z.object({
  team: z.string(),
  project: z.string().describe('the `project:` its project files name'),
  runs: z.number().int().describe('runs of the team and project with a call finished since `since` or in flight'),
  calls: z.number().int().describe('calls finished (completed or failed; every try counts) since `since`; a fork\'s copies of calls count nothing'),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().describe('the priced calls\' cost'),
  unpriced_calls: z.number().int().describe('calls no price was known for: their cost is not in cost_usd'),
  in_flight: UsageInFlight,
  team_caps: ScopeBudget.nullable().describe("the policy's budgets.teams.<team>, or null: no cap across runs for the team"),
  project_caps: ScopeBudget.nullable().describe("the policy's budgets.projects.<project>, or null"),
});
export type UsageRow = z.infer<typeof UsageRow>;

export const UsageReport = z.object({
  since: z.string().describe('the instant counted from (ISO 8601, UTC)'),
  rows: z.array(UsageRow).describe('one per team and project, by team then project'),
});
export type UsageReport = z.infer<typeof UsageReport>;
