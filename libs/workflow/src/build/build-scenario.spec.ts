import { RUN_EVENT_PAYLOADS } from '@roundtable/contracts';
import { happyPath, type BuildDriver } from './build-scenario.fixture';

describe('a whole build run (seed §9)', () => {
  // Run inside each test, not at collection time: a mutation run then knows which test covers what.
  let d: BuildDriver;
  beforeEach(() => {
    d = happyPath();
  });

  it('walks the transition table in order and ends DONE', () => {
    expect(d.path).toEqual(['PROPOSE', 'CRITIQUE', 'REVISE', 'CRITIQUE', 'IMPLEMENT', 'TEST', 'FIX', 'TEST', 'REVIEW', 'SYNTHESIZE', 'DONE']);
    expect(d.state).toMatchObject({ status: 'done', stage: 'DONE', round: 1, fixRound: 1, haltReason: null, unresolved: false });
    expect(d.last.verdict).toBe('ACCEPT');
    expect(d.last.confidence).toBe(0.82);
  });

  it('makes eight calls with stable labels and ids, each queued once', () => {
    expect(d.calls.map((c) => `${c.role}:${c.label}`)).toEqual([
      'proposer:P1',
      'critic:C1',
      'reviser:P2',
      'critic:C2',
      'engineer:I1',
      'engineer:I1f1',
      'validator:R1',
      'synthesizer:S1',
    ]);
    expect(d.calls.map((c) => c.callId)).toEqual(d.calls.map((_, i) => `run1-c${i + 1}`));
    expect(d.ops.map((o) => `${o.kind}:${o.opId}`)).toEqual([
      'workspace.prepare:run1-op1',
      'workspace.apply:run1-op2',
      'tests.run:run1-op3',
      'workspace.apply:run1-op4',
      'tests.run:run1-op5',
    ]);
    expect(d.state.testRuns.map((t) => `${t.label}:${t.implementationLabel}`)).toEqual(['T1:I1', 'T2:I1f1']);
    expect(d.state.proposals.map((p) => `${p.id}:${p.status}`)).toEqual(['run1-P1:superseded', 'run1-P2:accepted']);
    expect(d.state.implementations.map((i) => `${i.label}:${i.status}`)).toEqual(['I1:applied', 'I1f1:applied']);
    expect(d.state.synthesis).toMatchObject({ id: 'run1-S1', label: 'S1', partial: false, callId: 'run1-c8' });
  });

  it('emits only catalogued events, one stage_changed per decision, ending in run_completed', () => {
    for (const e of d.events) expect(RUN_EVENT_PAYLOADS[e.type].safeParse(e.payload).success).toBe(true);
    expect(d.events.filter((e) => e.type === 'stage_changed')).toHaveLength(d.decisions.length);
    expect(d.events[0].type).toBe('run_started');
    expect(d.events[d.events.length - 1]).toEqual({ type: 'run_completed', payload: { status: 'done', verdict: 'ACCEPT', confidence: 0.82 } });
    expect(new Set(d.eventTypes())).toEqual(
      new Set([
        'run_started',
        'stage_changed',
        'agent_call_queued',
        'agent_call_completed',
        'proposal_recorded',
        'critique_recorded',
        'criteria_locked',
        'implementation_recorded',
        'tests_started',
        'tests_completed',
        'review_recorded',
        'synthesis_recorded',
        'run_completed',
      ]),
    );
  });
});
