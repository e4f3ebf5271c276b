import { z } from 'zod';
import { Stage } from '@roundtable/contracts';

/** Names an unknown field by its full path; otherwise says what the object should look like. */
function objectIssue(iss: { code?: string; keys?: string[] }, at: string, notAnObject: string): string {
  if (iss.code === 'unrecognized_keys' && iss.keys) {
    return iss.keys.map((k) => `${at ? `${at}.` : ''}${k} is not a field of a resume request`).join('; ');
  }
  return notAnObject;
}

const positiveInt = (name: string) => z.number({ error: `${name} must be a number` }).int(`${name} must be a whole number`).positive(`${name} must be above 0`);

/**
 * The body of POST /v1/runs/:id/resume: where to restart (default: the stage the run's last
 * decision names) and caps to raise. Cap names and bounds are those of the project config's
 * budget; an unknown field is refused rather than ignored, so a typo cannot pass silently.
 */
export const ResumeRequest = z
  .object({
    from: z.enum(Stage.options, { error: `from must be a stage: ${Stage.options.join(', ')}` }).optional(),
    caps: z
      .object({
        max_calls: positiveInt('caps.max_calls').optional(),
        max_tokens: positiveInt('caps.max_tokens').optional(),
        max_cost_usd: z.number({ error: 'caps.max_cost_usd must be a number' }).positive('caps.max_cost_usd must be above 0').optional(),
        max_seconds: z.number({ error: 'caps.max_seconds must be a number' }).positive('caps.max_seconds must be above 0').optional(),
        max_rounds: positiveInt('caps.max_rounds').optional(),
        max_fix_rounds: z.number({ error: 'caps.max_fix_rounds must be a number' }).int('caps.max_fix_rounds must be a whole number').min(0, 'caps.max_fix_rounds must be 0 or more').optional(),
      }, { error: (iss) => objectIssue(iss, 'caps', 'caps must be an object such as { "max_calls": 24 }') })
      .strict()
      .optional(),
  }, { error: (iss) => objectIssue(iss, '', 'the body must be a JSON object such as { "from": "CRITIQUE" }') })
  .strict();
export type ResumeRequest = z.infer<typeof ResumeRequest>;
