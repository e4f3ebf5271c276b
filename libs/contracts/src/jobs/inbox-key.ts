import type { JobName } from './job-catalogue';

/**
 * The key under which the orchestrator records an event as applied (its inbox, the
 * `applied_events` table): a job whose key is already there changes nothing, which is what
 * makes a step idempotent. One function for every reader and writer of the inbox (the
 * orchestrator's step, the api asking whether an appeal is still waiting), so they cannot
 * drift apart.
 *
 * - a finished call or op: one event per call or op, however often its job is delivered;
 * - a resume, an appeal, an approval or an answer: a run may be resumed more than once, an appeal
 *   the budget refused asked again, and a run waits at more than one gate or question, so each
 *   request (each job id) is its own event;
 * - run.start and run.cancel: once per run.
 */
export function inboxKey(name: JobName, payload: { readonly callId?: unknown; readonly opId?: unknown; readonly [field: string]: unknown }, jobIdValue?: string): string {
  switch (name) {
    case 'run.resume':
    case 'run.appeal':
    case 'run.approve':
    case 'run.answer':
      return `${name}:${jobIdValue ?? 'once'}`;
    case 'run.halt':
      // One halt per quiet spell: after a resume and a new quiet spell, the next halt is new.
      return `run.halt:${String(payload.seenMs)}`;
    case 'agent.done':
      return `agent.done:${String(payload.callId)}`;
    case 'workspace.done':
    case 'tests.done':
      return `${name}:${String(payload.opId)}`;
    default:
      return name;
  }
}
