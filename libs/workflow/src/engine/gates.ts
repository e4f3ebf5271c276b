import type { RunStatus } from '@roundtable/contracts';
import type { EngineState } from './definition';
import type { ClosingStep } from './closing';

/**
 * Gates, the part every workflow shares (issue 21): the run stops at a named gate and waits for
 * a person with the `approve` role. Waiting is a status, `awaiting_approval`, not a process: no
 * call is in flight and no worker is held, so the run survives any restart, and the reconciler
 * leaves it alone until the project's approval_timeout_s runs out. The time spent waiting does
 * not count against max_seconds (the orchestrator keeps it on the run row, waited_seconds).
 * What the gate is for and what approving it does is the workflow's: it opens the gate with
 * what the approver should look at, and acts on the decision.
 */

export interface OpenGate {
  /** The gate's name, as the project's `approvals` lists it (`criteria`, `merge` …). */
  name: string;
  /** What the approver looks at: the criteria, or the branch, its diff, tests and synthesis. */
  subject: Record<string, unknown>;
}

/** A person's decision at a gate, as the api accepted it (`approver`: the token's name). */
export interface ApprovalEvent {
  type: 'approval';
  gate: string;
  decision: 'approve' | 'reject';
  note: string | null;
  approver: string;
  /** The criteria as approved (criteria gate): an entry without an id is new, a locked id left out is dropped. */
  criteria?: { id?: string; text: string }[];
}

/** What an approver changed of the criteria at the criteria gate. */
export interface CriteriaEdits {
  added: { id: string; text: string }[];
  dropped: { id: string; text: string }[];
  reworded: { id: string; from: string; to: string }[];
}

/** A person's decision at a gate as the run keeps it (the report lists them). */
export interface GateDecision {
  gate: string;
  decision: 'approve' | 'reject';
  approver: string;
  note: string | null;
  edits?: CriteriaEdits;
}

export interface GateStep<G extends string> extends ClosingStep<G> {
  readonly state: EngineState<G> & { status: RunStatus; gate?: OpenGate | null; approvals?: GateDecision[] };
}

/** Stops the run at `gate`: a decision (where it stands and why), and approval_requested with the subject. */
export function awaitApproval<G extends string>(step: GateStep<G>, gate: string, subject: Record<string, unknown>, why: string, refs: string[] = []): void {
  const stage = step.state.stage;
  step.state.status = 'awaiting_approval';
  step.state.gate = { name: gate, subject };
  step.decisions.push({ from: stage, to: stage, reason: `waiting at the ${gate} gate for a person's approval: ${why}`, refs });
  step.emit('approval_requested', { gate, subject });
}

/** The gate the run waits at, when `event` is a decision about it; null: a decision about no open gate changes nothing. */
export function gateDecided<G extends string>(step: GateStep<G>, event: ApprovalEvent): OpenGate | null {
  const open = step.state.gate;
  if (step.state.status !== 'awaiting_approval' || !open || open.name !== event.gate) return null;
  return open;
}

/**
 * Records the decision and lets the run go on (the workflow says where): a decision naming the
 * approver and their note, the decision on the state's `approvals` (for the report), and
 * approval_given (with what the approver changed) or approval_refused.
 */
export function closeGate<G extends string>(step: GateStep<G>, event: ApprovalEvent, edits?: CriteriaEdits): void {
  const stage = step.state.stage;
  step.state.status = 'running';
  step.state.gate = null;
  step.state.approvals = [...(step.state.approvals ?? []), { gate: event.gate, decision: event.decision, approver: event.approver, note: event.note, ...(edits ? { edits } : {}) }];
  const note = event.note ? `: ${event.note}` : '';
  const verb = event.decision === 'approve' ? 'approved' : 'refused';
  step.decisions.push({ from: stage, to: stage, reason: `${event.gate} gate ${verb} by ${event.approver}${note}`, refs: [] });
  if (event.decision === 'approve') step.emit('approval_given', { gate: event.gate, approver: event.approver, note: event.note, ...(edits ? { edits } : {}) });
  else step.emit('approval_refused', { gate: event.gate, approver: event.approver, note: event.note });
}

/**
 * A halt that comes while the run waits (approval_timeout_s ran out): the run stops waiting and
 * closes like any halt; no decision is recorded for the gate, because nobody took one.
 */
export function leaveGate<G extends string>(step: GateStep<G>): void {
  if (step.state.status !== 'awaiting_approval') return;
  step.state.status = 'running';
  step.state.gate = null;
}
