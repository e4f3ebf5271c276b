import type { JobName } from '@roundtable/contracts';

/** A job as Bull Board hands it to a name formatter (its JSON: name and data are what is read). */
export interface BoardJob {
  name?: string;
  data?: unknown;
}

/**
 * The line a job's card shows on Bull Board instead of the bare job name: what a person needs
 * to find the run and the step, read from the payload alone (the formatter is synchronous and
 * runs on every poll, so it reads no row). An agent call shows its card (role, label, stage:
 * "agent.call · run r1 · critic · C1 · CRITIQUE"); a job without one shows the ids it carries.
 */
export function jobCardName(job: BoardJob): string {
  const name = (job.name ?? '') as JobName | '';
  const d = (job.data ?? {}) as { runId?: unknown; callId?: unknown; opId?: unknown; card?: { role?: unknown; label?: unknown; stage?: unknown } };
  const parts: string[] = [name || '(unnamed)'];
  if (typeof d.runId === 'string') parts.push(`run ${d.runId}`);
  const card = d.card;
  if (card && typeof card.role === 'string' && typeof card.stage === 'string') {
    parts.push(card.role);
    if (typeof card.label === 'string' && card.label) parts.push(card.label);
    parts.push(card.stage);
  } else if (typeof d.callId === 'string') {
    parts.push(`call ${d.callId}`);
  } else if (typeof d.opId === 'string') {
    parts.push(`op ${d.opId}`);
  }
  return parts.join(' · ');
}
