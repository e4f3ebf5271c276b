import { z } from 'zod';
import { RunStage } from '@roundtable/contracts';

/**
 * The body of POST /v1/runs/:id/fork: the stage to start again from, and edits to the original's
 * project config. `edits` is a part of a project file, laid over the original's config (objects
 * merged key by key, anything else replaced: `requirements` is the whole new list), then the result
 * is checked exactly as a new submission is, against the schema and the operator's policy. An
 * unknown field is refused rather than ignored, so a typo cannot pass silently.
 */
export const ForkRequest = z
  .object(
    {
      from: z.enum(RunStage.options, { error: `from must be a stage: ${RunStage.options.join(', ')} (the stage to run again from; every call before it is copied)` }),
      edits: z
        .record(z.string(), z.unknown(), { error: 'edits must be an object: a part of a project file, e.g. { "requirements": ["…"] }' })
        .refine((e) => !('workflow' in e), { message: 'edits.workflow cannot change: a fork runs its original\'s workflow' })
        .optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? `${(iss as { keys: string[] }).keys.join(', ')} is not a field of a fork request (it takes from and edits)` : 'the body must be a JSON object such as { "from": "CRITIQUE", "edits": { "requirements": ["…"] } }') },
  )
  .strict();
export type ForkRequest = z.infer<typeof ForkRequest>;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `edits` laid over `base`: objects merged key by key, anything else (arrays, strings, numbers) replaced. Neither input changes. */
export function overlay(base: Record<string, unknown>, edits: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(edits)) out[k] = isPlainObject(v) && isPlainObject(base[k]) ? overlay(base[k], v) : v;
  return out;
}
