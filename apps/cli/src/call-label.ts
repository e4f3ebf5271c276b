import { ApiClient, seg } from './api-client';
import { UsageError } from './cli-args';
import type { CallSummary } from './poll-events';

/** Labels as the workflows write them (P1, C2, I1f1, R1, S1, VC1 …): letters then a number, never a call id's `<run>-c<n>`. */
export const looksLikeLabel = (ref: string): boolean => /^[A-Za-z]+\d+[A-Za-z0-9]*$/.test(ref) && !/-c\d+$/.test(ref);

/** A bare label names no run: say how to give one rather than "cannot tell which run". */
export function refuseBareLabel(ref: string, runOption: string | undefined): void {
  if (!runOption && !ref.includes('/') && looksLikeLabel(ref)) {
    throw new UsageError(`${ref} is a call label: name its run as <run>/${ref} or add --run <run>`, 'call-show');
  }
}

/**
 * The id of the run's call with this label: the latest one when a label was reused (a repaired reply, a
 * resumed stage), as the report cites the call that counted. Null when no call has it (the caller then asks
 * the API for the ref as an id, and its 404 says what is missing).
 */
export async function callIdOfLabel(client: ApiClient, runId: string, label: string): Promise<string | null> {
  const calls = await client.getJson<CallSummary[]>(`/v1/runs/${seg(runId)}/calls`);
  const matching = calls.filter((c) => c.label !== null && c.label.toLowerCase() === label.toLowerCase());
  return matching.length ? matching.reduce((a, b) => (b.seq > a.seq ? b : a)).id : null;
}
