import type { RunStatus } from '@roundtable/contracts';
import { awaitApproval, closeGate, gateDecided, leaveGate, type ApprovalEvent, type GateDecision, type OpenGate } from './gates';
import { StepAccumulator } from './step-accumulator';

/** The engine's gates (issue 21), for any workflow: open, decide, close, leave. */

type GateState = { runId: string; stage: string; counters: Record<string, number>; config: never; haltReason: string | null; usage: never; status: RunStatus; gate?: OpenGate | null; approvals?: GateDecision[] };

class TestStep extends StepAccumulator<GateState, string, unknown, unknown> {
  constructor(over: Partial<GateState> = {}) {
    super({ runId: 'run1', stage: 'CRITIQUE', counters: {}, config: undefined as never, haltReason: null, usage: undefined as never, status: 'running', ...over });
  }

  protected outcome() {
    return { verdict: null, confidence: null };
  }
}

const approval = (over: Partial<ApprovalEvent> = {}): ApprovalEvent => ({ type: 'approval', gate: 'criteria', decision: 'approve', note: null, approver: 'alice', ...over });
const waiting = (over: Partial<GateState> = {}) => new TestStep({ status: 'awaiting_approval', gate: { name: 'criteria', subject: { criteria: [] } }, ...over });

describe('awaitApproval', () => {
  it('sets the run waiting at the gate with its subject, records where and why (with refs), and emits approval_requested', () => {
    const step = new TestStep();
    awaitApproval(step as never, 'criteria', { criteria: [{ id: 'AC1', text: 't' }] }, 'C1 ACCEPTs P1', ['C1']);
    expect(step.state).toMatchObject({ status: 'awaiting_approval', gate: { name: 'criteria', subject: { criteria: [{ id: 'AC1', text: 't' }] } } });
    expect(step.decisions).toEqual([{ from: 'CRITIQUE', to: 'CRITIQUE', reason: "waiting at the criteria gate for a person's approval: C1 ACCEPTs P1", refs: ['C1'] }]);
    expect(step.events).toEqual([{ type: 'approval_requested', payload: { gate: 'criteria', subject: { criteria: [{ id: 'AC1', text: 't' }] } } }]);
  });

  it('records no refs when given none', () => {
    const step = new TestStep();
    awaitApproval(step as never, 'merge', {}, 'why');
    expect(step.decisions[0].refs).toEqual([]);
  });
});

describe('gateDecided', () => {
  it('answers the open gate for a decision about it', () => {
    const step = waiting();
    expect(gateDecided(step as never, approval())).toEqual({ name: 'criteria', subject: { criteria: [] } });
  });

  it('answers null for another gate, a run not waiting, or a run waiting with no gate recorded', () => {
    expect(gateDecided(waiting() as never, approval({ gate: 'merge' }))).toBeNull();
    expect(gateDecided(waiting({ status: 'running' }) as never, approval())).toBeNull();
    expect(gateDecided(waiting({ gate: null }) as never, approval())).toBeNull();
    expect(gateDecided(new TestStep({ status: 'running', gate: { name: 'criteria', subject: {} } }) as never, approval())).toBeNull();
  });
});

describe('closeGate', () => {
  it('an approval: running again, the gate cleared, the decision kept after earlier ones, a decision naming the approver and the note, approval_given', () => {
    const earlier: GateDecision = { gate: 'criteria', decision: 'approve', approver: 'bob', note: null };
    const step = waiting({ approvals: [earlier] });
    const edits = { added: [{ id: 'AC3', text: 'new' }], dropped: [], reworded: [] };
    closeGate(step as never, approval({ note: 'looks right' }), edits);
    expect(step.state).toMatchObject({ status: 'running', gate: null });
    expect(step.state.approvals).toEqual([earlier, { gate: 'criteria', decision: 'approve', approver: 'alice', note: 'looks right', edits }]);
    expect(step.decisions).toEqual([{ from: 'CRITIQUE', to: 'CRITIQUE', reason: 'criteria gate approved by alice: looks right', refs: [] }]);
    expect(step.events).toEqual([{ type: 'approval_given', payload: { gate: 'criteria', approver: 'alice', note: 'looks right', edits } }]);
  });

  it('a refusal: the decision says refused, with no note when none was given, and approval_refused carries no edits', () => {
    const step = waiting();
    closeGate(step as never, approval({ gate: 'merge', decision: 'reject' }));
    expect(step.state.approvals).toEqual([{ gate: 'merge', decision: 'reject', approver: 'alice', note: null }]);
    expect(step.decisions[0].reason).toBe('merge gate refused by alice');
    expect(step.events).toEqual([{ type: 'approval_refused', payload: { gate: 'merge', approver: 'alice', note: null } }]);
  });

  it('an approval without edits keeps no edits field', () => {
    const step = waiting();
    closeGate(step as never, approval());
    expect(step.state.approvals).toEqual([{ gate: 'criteria', decision: 'approve', approver: 'alice', note: null }]);
    expect(step.events[0]).toEqual({ type: 'approval_given', payload: { gate: 'criteria', approver: 'alice', note: null } });
  });
});

describe('leaveGate', () => {
  it('stops a waiting run waiting, recording no decision', () => {
    const step = waiting();
    leaveGate(step as never);
    expect(step.state).toMatchObject({ status: 'running', gate: null });
    expect(step.decisions).toEqual([]);
  });

  it('leaves a run that is not waiting as it was', () => {
    const step = new TestStep({ status: 'halted', gate: { name: 'merge', subject: {} } });
    leaveGate(step as never);
    expect(step.state).toMatchObject({ status: 'halted', gate: { name: 'merge', subject: {} } });
  });
});
