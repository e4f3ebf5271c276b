import { z } from 'zod';

/**
 * Where a fork came from (issue 22's "run again from <stage>"), kept on the fork's run row: the
 * original run, the stage it was started again from, and the original's finished calls before that
 * stage, by `forkCallKey`. When the fork's engine asks for a call under one of those keys (same
 * role and stage), the orchestrator copies the recorded call instead of asking a provider: nothing
 * before the stage is asked or billed again, and each copy names the call it came from.
 */
export const ForkedCall = z.object({ id: z.string(), role: z.string(), stage: z.string() });
export type ForkedCall = z.infer<typeof ForkedCall>;

export const ForkOrigin = z.object({
  run_id: z.string(),
  stage: z.string(),
  calls: z.record(z.string(), ForkedCall),
});
export type ForkOrigin = z.infer<typeof ForkOrigin>;

/**
 * A call's place in its run, the same in the original and in a fork that replays it: its label,
 * which attempt (2 = the schema repair) and which transient retry. Labels are given in order by
 * the engine, so a fork that is handed the same replies asks for the same keys.
 */
export function forkCallKey(label: string, attempt: number, retry: number): string {
  return `${label}#${attempt}#${retry}`;
}
