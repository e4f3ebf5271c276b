import { forkCallKey, type ForkedCall } from '@roundtable/contracts';

/** One of the original run's calls, as the fork reads them (by seq). */
export interface OriginalCallRow {
  id: string;
  seq: number;
  stage: string;
  role: string;
  label: string | null;
  attempt: number;
  retry: number;
  status: string;
}

/** Why a fork from that stage cannot be made: the message names the field and the way out. */
export class ForkRefusal extends Error {}

/**
 * The calls a fork from `stage` may copy: every finished call the original made before its first
 * call at that stage, by its key (label, attempt, retry). A stage the original made no call at has
 * no place to cut; an agent-mode engineer's tool turns share one label (the same key many times)
 * and are refused rather than copied out of order.
 */
export function callsBeforeStage(calls: readonly OriginalCallRow[], stage: string): Record<string, ForkedCall> {
  const first = calls.find((c) => c.stage === stage);
  if (!first) {
    const stages = [...new Set(calls.map((c) => c.stage))];
    throw new ForkRefusal(
      `from: the run made no call at ${stage}, so there is no place to start again from there; it made calls at ${stages.length ? stages.join(', ') : 'no stage (no call at all)'}`,
    );
  }
  const copied: Record<string, ForkedCall> = {};
  for (const c of calls) {
    if (c.seq >= first.seq || c.label === null || (c.status !== 'completed' && c.status !== 'failed')) continue;
    const key = forkCallKey(c.label, c.attempt, c.retry);
    if (copied[key]) {
      throw new ForkRefusal(
        `from: the calls before ${stage} include several turns of ${c.label} (an agent-mode engineer's tool loop), which a fork cannot copy in order; start again from ${c.stage} or earlier`,
      );
    }
    copied[key] = { id: c.id, role: c.role, stage: c.stage };
  }
  return copied;
}
