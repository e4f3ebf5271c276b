import { z } from 'zod';
import { RunStage } from '@roundtable/contracts';
import { budgetCapsRequest } from './budget-caps.schema';

/** Names an unknown field by its full path; otherwise says what the object should look like. */
function objectIssue(iss: { code?: string; keys?: string[] }, at: string, notAnObject: string): string {
  if (iss.code === 'unrecognized_keys' && iss.keys) {
    return iss.keys.map((k) => `${at ? `${at}.` : ''}${k} is not a field of a resume request`).join('; ');
  }
  return notAnObject;
}

/**
 * The body of POST /v1/runs/:id/resume: where to restart (default: the stage the run's last
 * decision names) and caps to raise. Cap names and bounds are those of the project config's
 * budget; an unknown field is refused rather than ignored, so a typo cannot pass silently.
 */
export const ResumeRequest = z
  .object({
    // Any workflow's stage here; the run's own workflow narrows it once the run is read (run-control).
    from: z.enum(RunStage.options, { error: `from must be a stage: ${RunStage.options.join(', ')}` }).optional(),
    caps: budgetCapsRequest('a resume request').optional(),
  }, { error: (iss) => objectIssue(iss, '', 'the body must be a JSON object such as { "from": "CRITIQUE" }') })
  .strict();
export type ResumeRequest = z.infer<typeof ResumeRequest>;
