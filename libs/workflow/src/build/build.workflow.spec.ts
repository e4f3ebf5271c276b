import type { ProjectConfigInput } from '@roundtable/contracts';
import {
  BuildDriver,
  critiqueBody,
  implementationBody,
  problem,
  proposalBody,
  reviewBody,
  synthesisBody,
  testConfig,
  testResult,
  TEST_TEMPLATES,
} from './build-scenario.fixture';
import { buildWorkflow, decide } from './build.workflow';
import type { AgentCallCommand } from './build-types';

const driver = (overrides: Partial<ProjectConfigInput> = {}) => new BuildDriver(testConfig(overrides));

/** A driver whose critic has just been asked about P1. */
function atFirstCritique(overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const d = driver(overrides).begin();
  d.reply(proposalBody('P1'));
  return d;
}

/** A driver whose engineer has just been asked for I1 (P1 accepted by C1). */
function atImplement(overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const d = atFirstCritique(overrides);
  d.reply(critiqueBody('P1', 'ACCEPT'));
  return d;
}

/** A driver waiting for T1's result. */
function atFirstTest(overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const d = atImplement(overrides);
  d.reply(implementationBody('P1'));
  d.applied();
  return d;
}

/** Runs REVISE rounds until the critic at the round limit is pending. */
function atRoundLimit(overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const d = atFirstCritique({ ...overrides, budget: { max_rounds: 1 } });
  d.reply(critiqueBody('P1', 'REVISE'));
  d.reply(proposalBody('P2', { revision_of: 'P1' }));
  expect(d.pendingCall?.label).toBe('C2');
  return d;
}

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

describe('build workflow: start and workspace', () => {
  it('start: queued → running, prepares the workspace, stays in INIT', () => {
    const d = driver();
    const r = d.start();
    expect(r.state.status).toBe('running');
    expect(r.state.stage).toBe('INIT');
    expect(r.commands).toEqual([{ kind: 'workspace.prepare', opId: 'run1-op1' }]);
    expect(r.events).toEqual([{ type: 'run_started', payload: { workspace: null } }]);
    expect(r.decisions).toEqual([]);
    expect(d.step({ type: 'start' }).commands).toEqual([]); // a repeated start is a no-op
  });

  it('workspace_prepared → PROPOSE with the proposer call P1', () => {
    const d = driver();
    d.start();
    const r = d.prepare(['README.md']);
    expect(r.decisions).toEqual([{ from: 'INIT', to: 'PROPOSE', reason: 'workspace ready at /ws/run1 (1 file)', refs: [] }]);
    expect(r.state.workspace).toEqual({ path: '/ws/run1', tree: ['README.md'] });
    const call = r.commands[0] as AgentCallCommand;
    expect(call).toMatchObject({
      kind: 'agent_call',
      callId: 'run1-c1',
      role: 'proposer',
      stage: 'PROPOSE',
      label: 'P1',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      schemaName: 'Proposal',
      maxTokens: 2000,
      temperature: 0.1,
      timeoutMs: 60_000,
      attempt: 1,
      repairOf: null,
    });
    expect(call.messages).toHaveLength(2);
    expect(call.messages[0]).toEqual({ role: 'system', content: 'You are the proposer.' });
    expect(call.messages[1].content).toContain('## proposal_id\nP1');
    expect(call.estimatedTokens).toBe(Math.ceil((call.messages[0].content.length + call.messages[1].content.length) / 4));
    expect(r.events.map((e) => e.type)).toEqual(['stage_changed', 'agent_call_queued']);
  });

  it('workspace_failed → the run fails with the error, nothing to synthesize', () => {
    const d = driver();
    d.start();
    const r = d.step({ type: 'workspace_failed', opId: 'run1-op1', error: 'repo /x is not readable' });
    expect(r.state.status).toBe('failed');
    expect(r.state.stage).toBe('HALTED');
    expect(r.commands).toEqual([]);
    expect(r.events).toContainEqual({ type: 'run_failed', payload: { reason: 'workspace could not be prepared: repo /x is not readable' } });
  });
});

describe('build workflow: debate (seed §8)', () => {
  it('PROPOSE, proposal valid → CRITIQUE with the critic call C1', () => {
    const d = driver().begin();
    const r = d.reply(proposalBody('P1'));
    expect(r.records).toContainEqual({
      kind: 'proposal',
      record: expect.objectContaining({ id: 'run1-P1', label: 'P1', callId: 'run1-c1', round: 0, revisionOf: null, status: 'proposed' }),
    });
    expect(r.decisions).toEqual([{ from: 'PROPOSE', to: 'CRITIQUE', reason: 'P1 valid', refs: ['P1'] }]);
    expect(pending(d)).toMatchObject({ callId: 'run1-c2', role: 'critic', label: 'C1', provider: 'xai', schemaName: 'Critique', stage: 'CRITIQUE' });
    expect(r.events.map((e) => e.type)).toEqual(['agent_call_completed', 'proposal_recorded', 'stage_changed', 'agent_call_queued']);
  });

  it('CRITIQUE ACCEPT → IMPLEMENT: proposal accepted, criteria locked and de-duplicated', () => {
    const d = atFirstCritique();
    const r = d.reply(critiqueBody('P1', 'ACCEPT', { tests_required: ['[]  -> 0.0', '[0, 1, 2] -> 0.0'] }));
    expect(r.decisions).toEqual([{ from: 'CRITIQUE', to: 'IMPLEMENT', reason: 'C1 ACCEPTs P1', refs: ['C1', 'P1'] }]);
    expect(r.records).toContainEqual({ kind: 'proposal_status', label: 'P1', status: 'accepted' });
    expect(r.state.criteria).toEqual([
      { id: 'AC1', text: '[] -> 0.0' },
      { id: 'AC2', text: 'P1: [100, 120, 90, 60] -> 0.5' },
      { id: 'AC3', text: '[0, 1, 2] -> 0.0' },
    ]);
    expect(r.events).toContainEqual({ type: 'criteria_locked', payload: { criteria: r.state.criteria } });
    expect(pending(d)).toMatchObject({ role: 'engineer', label: 'I1', schemaName: 'Implementation', provider: 'openai' });
    expect(d.prompt()).toContain('AC3: [0, 1, 2] -> 0.0');
  });

  it('CRITIQUE REVISE with round < max_rounds → REVISE (round += 1), then REVISE valid → CRITIQUE', () => {
    const d = atFirstCritique();
    const r = d.reply(critiqueBody('P1', 'REVISE'));
    expect(r.state.round).toBe(1);
    expect(r.decisions[0]).toMatchObject({ from: 'CRITIQUE', to: 'REVISE', reason: 'C1 says REVISE on P1: revision round 1 of 3' });
    expect(r.records).toContainEqual({ kind: 'proposal_status', label: 'P1', status: 'criticized' });
    expect(pending(d)).toMatchObject({ role: 'reviser', label: 'P2', schemaName: 'Proposal', contextRefs: ['P1', 'C1'] });
    expect(d.prompt()).toContain('## revision_of\nP1');

    const r2 = d.reply(proposalBody('P2', { revision_of: 'P1' }));
    expect(r2.records).toContainEqual({ kind: 'proposal_status', label: 'P1', status: 'superseded' });
    expect(r2.records).toContainEqual({ kind: 'proposal', record: expect.objectContaining({ label: 'P2', revisionOf: 'P1', round: 1 }) });
    expect(r2.decisions).toEqual([{ from: 'REVISE', to: 'CRITIQUE', reason: 'revision P2 of P1 valid', refs: ['P2'] }]);
    expect(pending(d)).toMatchObject({ role: 'critic', label: 'C2' });
  });

  it('REVISE at the round limit without a blocker, on_unresolved implement → IMPLEMENT with unresolved=true', () => {
    const d = atRoundLimit({ on_unresolved: 'implement' });
    const r = d.reply(critiqueBody('P2', 'REVISE', { problems: [problem('major', 'no NaN handling')] }));
    expect(r.state.unresolved).toBe(true);
    expect(r.decisions[0]).toMatchObject({ from: 'CRITIQUE', to: 'IMPLEMENT' });
    expect(r.decisions[0].reason).toContain('round limit');
    expect(r.state.criteria?.length).toBeGreaterThan(0);
    expect(pending(d)).toMatchObject({ role: 'engineer', label: 'I1' });
    expect(d.prompt()).toMatch(/## open_criticisms\n<evidence id="C2" type="open_criticisms"[^]*no NaN handling/);
  });

  it('REVISE at the round limit without a blocker, on_unresolved halt → HALTED → partial synthesis', () => {
    const d = atRoundLimit({ on_unresolved: 'halt' });
    const r = d.reply(critiqueBody('P2', 'REVISE'));
    expect(d.path.slice(-2)).toEqual(['HALTED', 'SYNTHESIZE']);
    expect(r.state.haltReason).toContain('on_unresolved: halt');
    expect(pending(d)).toMatchObject({ role: 'synthesizer', label: 'S1' });
    expect(d.prompt()).toContain('on_unresolved: halt');
    const done = d.reply(synthesisBody('REVISE'));
    expect(done.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(done.verdict).toBe('REVISE');
  });

  it.each(['implement', 'halt'] as const)('REVISE at the round limit with a blocker stops as needs_input (on_unresolved %s)', (mode) => {
    const d = atRoundLimit({ on_unresolved: mode });
    const r = d.reply(critiqueBody('P2', 'REVISE', { problems: [problem('blocker', '[0, 1, 2] raises'), problem('minor', 'style')] }));
    expect(r.state).toMatchObject({ status: 'needs_input', stage: 'HALTED', haltReason: 'blocker still open at the round limit: [0, 1, 2] raises' });
    expect(r.state.criteria).toBeNull();
    expect(r.commands).toEqual([]);
    expect(r.records).toContainEqual({ kind: 'open_question', role: 'critic', question: expect.stringContaining('[0, 1, 2] raises') });
    expect(r.records).toContainEqual({ kind: 'synthesis', record: { id: 'run1-S1', label: 'S1', callId: null, partial: true, body: null } });
    expect(r.events).toContainEqual({ type: 'run_completed', payload: { status: 'needs_input', verdict: null, confidence: null } });
    expect(r.state.openQuestions).toHaveLength(1);
  });

  it('CRITIQUE REJECT → SYNTHESIZE; nothing is built', () => {
    const d = atFirstCritique();
    const r = d.reply(critiqueBody('P1', 'REJECT'));
    expect(r.decisions[0]).toMatchObject({ from: 'CRITIQUE', to: 'SYNTHESIZE' });
    expect(r.records).toContainEqual({ kind: 'proposal_status', label: 'P1', status: 'rejected' });
    expect(pending(d)).toMatchObject({ role: 'synthesizer', label: 'S1', schemaName: 'Synthesis' });
    const done = d.reply(synthesisBody('REJECT'));
    expect(done.state).toMatchObject({ stage: 'DONE', status: 'done' });
    expect(done.verdict).toBe('REJECT');
    expect(d.calls.some((c) => c.role === 'engineer')).toBe(false);
  });

  it.each(['NEEDS_EVIDENCE', 'NEEDS_EXPERIMENT'] as const)('CRITIQUE %s → SYNTHESIZE plus an open question', (verdict) => {
    const d = atFirstCritique();
    const r = d.reply(critiqueBody('P1', verdict, { problems: [problem('major', 'is the series daily?')] }));
    expect(r.decisions[0]).toMatchObject({ from: 'CRITIQUE', to: 'SYNTHESIZE' });
    expect(r.records).toContainEqual({ kind: 'open_question', role: 'critic', question: expect.stringContaining(`C1 (${verdict}) on P1: is the series daily?`) });
    expect(r.events.map((e) => e.type)).toContain('open_question_raised');
    expect(pending(d).role).toBe('synthesizer');
  });
});

describe('build workflow: implement, test, fix, review', () => {
  it('IMPLEMENT valid → pending implementation and workspace.apply; files written → TEST', () => {
    const d = atImplement();
    const r = d.reply(implementationBody('P1'));
    expect(r.records).toContainEqual({
      kind: 'implementation',
      record: expect.objectContaining({ id: 'run1-I1', label: 'I1', proposalLabel: 'P1', fixRound: 0, status: 'pending' }),
    });
    expect(r.commands).toEqual([{ kind: 'workspace.apply', opId: 'run1-op2', implementationLabel: 'I1' }]);
    expect(r.decisions).toEqual([]);
    expect(r.state.stage).toBe('IMPLEMENT');

    const t = d.applied(['dd.py', 'test_dd.py']);
    expect(t.records).toContainEqual({ kind: 'implementation_status', label: 'I1', status: 'applied', applyError: null });
    expect(t.decisions).toEqual([{ from: 'IMPLEMENT', to: 'TEST', reason: 'I1 files written (path-checked)', refs: ['I1'] }]);
    // The implementation's own test command is used when the project sets none.
    expect(t.commands).toEqual([{ kind: 'tests.run', opId: 'run1-op3', implementationLabel: 'I1', testLabel: 'T1', command: 'pytest -q', timeoutS: 120 }]);
    expect(t.events).toContainEqual({ type: 'tests_started', payload: { implementation: 'I1', command: 'pytest -q' } });
    expect(t.state.workspace.tree).toEqual(['dd.py', 'test_dd.py']);
  });

  it('the project test command and timeout win over the implementation’s', () => {
    const d = atImplement({ test_command: 'python -m pytest -q', test_timeout_s: 30 });
    d.reply(implementationBody('P1'));
    const t = d.applied();
    expect(t.commands[0]).toMatchObject({ command: 'python -m pytest -q', timeoutS: 30 });
  });

  it('files rejected → implementation rejected, HALTED with the error, partial synthesis', () => {
    const d = atImplement();
    d.reply(implementationBody('P1'));
    const r = d.rejected('"../x" escapes the workspace');
    expect(r.records).toContainEqual({ kind: 'implementation_status', label: 'I1', status: 'rejected', applyError: '"../x" escapes the workspace' });
    expect(r.events).toContainEqual({ type: 'files_rejected', payload: { label: 'I1', error: '"../x" escapes the workspace' } });
    expect(r.state.haltReason).toBe('implementation I1 rejected: "../x" escapes the workspace');
    expect(d.path.slice(-2)).toEqual(['HALTED', 'SYNTHESIZE']);
    expect(pending(d).role).toBe('synthesizer');
  });

  it('TEST exit 0 → REVIEW with the validator call R1', () => {
    const d = atFirstTest();
    const r = d.tests(testResult(0));
    expect(r.decisions).toEqual([{ from: 'TEST', to: 'REVIEW', reason: 'T1 passed (exit 0)', refs: ['T1', 'I1'] }]);
    expect(r.events).toContainEqual({ type: 'tests_completed', payload: { label: 'T1', exit_code: 0, passed: 4, failed: 0, errors: 0, timed_out: false } });
    expect(pending(d)).toMatchObject({ role: 'validator', label: 'R1', schemaName: 'Review', provider: 'ollama' });
  });

  it('TEST exit ≠ 0 with fix rounds left → FIX (fixRound += 1), engineer I1f1 sees the failure and its files', () => {
    const d = atFirstTest();
    const r = d.tests(testResult(1));
    expect(r.state.fixRound).toBe(1);
    expect(r.decisions[0]).toMatchObject({ from: 'TEST', to: 'FIX', reason: 'T1 failed (exit 1): fix round 1 of 1' });
    expect(pending(d)).toMatchObject({ role: 'engineer', label: 'I1f1', stage: 'FIX' });
    expect(d.prompt()).toContain('FAILED test_dd.py::test_ends_at_trough');
    expect(d.prompt()).toContain('def max_drawdown(equity)');
    const fix = d.reply(implementationBody('P1', [{ path: 'dd.py', content: 'fixed' }]));
    expect(fix.records).toContainEqual({ kind: 'implementation', record: expect.objectContaining({ label: 'I1f1', fixRound: 1 }) });
    const t2 = d.applied();
    expect(t2.decisions[0]).toMatchObject({ from: 'FIX', to: 'TEST' });
    expect(t2.commands[0]).toMatchObject({ kind: 'tests.run', implementationLabel: 'I1f1', testLabel: 'T2' });
  });

  it('TEST exit ≠ 0 with fix rounds exhausted → REVIEW; the validator sees the failing run', () => {
    const d = atFirstTest();
    d.tests(testResult(1));
    d.reply(implementationBody('P1', [{ path: 'dd.py', content: 'still wrong' }]));
    d.applied();
    const r = d.tests(testResult(1, { stdout_tail: '1 failed, 4 passed (T2)' }));
    expect(r.decisions[0].to).toBe('REVIEW');
    expect(r.decisions[0].reason).toContain('fix rounds are used up (1 of 1)');
    expect(pending(d).label).toBe('R1');
    expect(d.prompt()).toContain('1 failed, 4 passed (T2)');
  });

  it('max_fix_rounds 0: a failing first run goes straight to REVIEW', () => {
    const d = atFirstTest({ budget: { max_fix_rounds: 0 } });
    const r = d.tests(testResult(2));
    expect(r.decisions[0]).toMatchObject({ from: 'TEST', to: 'REVIEW' });
    expect(r.state.fixRound).toBe(0);
  });

  it('tests that cannot run → HALTED with the error, partial synthesis', () => {
    const d = atFirstTest();
    const r = d.testsFailedToRun('docker: image python:3.12 not found');
    expect(r.state.haltReason).toBe('tests could not run: docker: image python:3.12 not found');
    expect(d.path.slice(-2)).toEqual(['HALTED', 'SYNTHESIZE']);
  });

  it('REVIEW, any verdict → SYNTHESIZE; SYNTHESIZE valid → DONE', () => {
    const d = atFirstTest();
    d.tests(testResult(0));
    const r = d.reply(reviewBody('I1', 'REVISE'));
    expect(r.records).toContainEqual({ kind: 'critique', record: expect.objectContaining({ label: 'R1', targetKind: 'implementation', targetLabel: 'I1', verdict: 'REVISE' }) });
    expect(r.events).toContainEqual({ type: 'review_recorded', payload: { label: 'R1', verdict: 'REVISE' } });
    expect(r.decisions[0]).toMatchObject({ from: 'REVIEW', to: 'SYNTHESIZE' });
    const done = d.reply(synthesisBody('REVISE', { confidence: 0.6 }));
    expect(done.state).toMatchObject({ stage: 'DONE', status: 'done' });
    expect(done.records).toContainEqual({ kind: 'synthesis', record: expect.objectContaining({ label: 'S1', partial: false, callId: done.state.synthesis?.callId }) });
    expect({ verdict: done.verdict, confidence: done.confidence }).toEqual({ verdict: 'REVISE', confidence: 0.6 });
    expect(done.events.slice(-3).map((e) => e.type)).toEqual(['synthesis_recorded', 'stage_changed', 'run_completed']);
    expect(done.events[done.events.length - 1]).toEqual({ type: 'run_completed', payload: { status: 'done', verdict: 'REVISE', confidence: 0.6 } });
  });
});

describe('build workflow: failed calls', () => {
  it('a schema failure on attempt 1 gets one repair call with the error', () => {
    const d = atFirstCritique();
    const bad = pending(d);
    const r = d.invalid('verdict: Invalid option', { verdict: 'MAYBE' });
    const repair = r.commands[0] as AgentCallCommand;
    expect(repair).toMatchObject({
      role: 'critic',
      label: 'C1',
      stage: 'CRITIQUE',
      provider: 'xai',
      model: 'grok-4',
      attempt: 2,
      repairOf: bad.callId,
      callId: 'run1-c3',
    });
    expect(repair.messages.slice(0, 2)).toEqual(bad.messages);
    expect(repair.messages[2]).toEqual({ role: 'assistant', content: '{"verdict":"MAYBE"}' });
    expect(repair.messages[3]).toEqual({
      role: 'user',
      content: 'Your reply did not match the schema: verdict: Invalid option. Reply again with one JSON object that matches the schema.',
    });
    expect(r.decisions).toEqual([]);
    expect(r.events.map((e) => e.type)).toEqual(['agent_call_completed', 'agent_call_queued']);
    expect(r.events[0].payload).toMatchObject({ valid: false });
    // The repaired reply carries on as if the first had been valid.
    const ok = d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(ok.decisions[0].to).toBe('IMPLEMENT');
  });

  it('a reply the worker passed but the schema refuses is treated as a schema failure', () => {
    const d = atFirstCritique();
    const r = d.reply({ ...critiqueBody('P1', 'REVISE'), problems: [] });
    expect((r.commands[0] as AgentCallCommand).attempt).toBe(2);
    expect((r.commands[0] as AgentCallCommand).messages[3].content).toContain('problems: a REVISE verdict must list at least one problem');
  });

  it('a schema failure on attempt 2 → FAILED_SCHEMA halt → partial synthesis', () => {
    const d = atFirstCritique();
    d.invalid('verdict: Invalid option');
    const r = d.invalid('confidence: confidence must be in [0,1]');
    expect(r.state.haltReason).toBe('FAILED_SCHEMA: critic reply failed its schema twice: confidence: confidence must be in [0,1]');
    expect(d.path.slice(-2)).toEqual(['HALTED', 'SYNTHESIZE']);
    expect(r.events).toContainEqual({ type: 'run_halted', payload: { reason: r.state.haltReason } });
    expect(pending(d).role).toBe('synthesizer');
  });

  it('a guard or provider failure halts with the provider’s own words', () => {
    const d = atFirstCritique();
    const r = d.fail('REPLAY_GUARD', 'critic prompt contains forbidden text "claude-sonnet-4-5"');
    expect(r.state.haltReason).toBe('critic call failed (REPLAY_GUARD): critic prompt contains forbidden text "claude-sonnet-4-5"');
    expect(r.events[0]).toMatchObject({ type: 'agent_call_failed', payload: { error_code: 'REPLAY_GUARD' } });
    expect(d.calls.filter((c) => c.role === 'critic')).toHaveLength(1); // not retried
    expect(pending(d).role).toBe('synthesizer');
  });

  it('a usage limit on the synthesizer’s own provider → fact-only report', () => {
    const d = atFirstCritique({
      agents: { ...testConfig().agents, critic: { provider: 'anthropic', model: 'claude-opus-4-1' } } as ProjectConfigInput['agents'],
    });
    const r = d.fail('USAGE_LIMIT', 'You have hit your limit, resets 5pm');
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted', haltReason: 'critic call failed (USAGE_LIMIT): You have hit your limit, resets 5pm' });
    expect(r.commands).toEqual([]);
    expect(r.state.synthesis).toMatchObject({ callId: null, partial: true, body: null });
  });

  it('synthesizer failure in a running run → fact-only report, DONE, halted', () => {
    const d = atFirstCritique();
    d.reply(critiqueBody('P1', 'REJECT'));
    const r = d.fail('PROVIDER_ERROR', '529 overloaded');
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted', haltReason: 'synthesizer call failed (PROVIDER_ERROR): 529 overloaded' });
    expect(d.path.slice(-3)).toEqual(['SYNTHESIZE', 'HALTED', 'DONE']);
    expect(r.records).toContainEqual({ kind: 'synthesis', record: expect.objectContaining({ callId: null, body: null, partial: true }) });
    expect(r.events[r.events.length - 1]).toEqual({ type: 'run_completed', payload: { status: 'halted', verdict: null, confidence: null } });
  });

  it('synthesizer schema failure gets its repair; a second failure → FAILED_SCHEMA, fact-only', () => {
    const d = atFirstCritique();
    d.reply(critiqueBody('P1', 'REJECT'));
    const r = d.invalid('overall_verdict: Invalid option');
    expect(r.commands[0]).toMatchObject({ role: 'synthesizer', attempt: 2, label: 'S1' });
    const r2 = d.invalid('overall_verdict: Invalid option');
    expect(r2.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(r2.state.haltReason).toMatch(/^FAILED_SCHEMA: synthesizer reply failed its schema twice/);
  });

  it('the partial synthesis after a halt gets exactly one call: its failure → fact-only, no repair', () => {
    const d = atFirstCritique();
    d.fail('TIMEOUT', 'critic timed out after 600 s');
    const r = d.invalid('what_was_built: expected string');
    expect(r.commands).toEqual([]);
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted', haltReason: 'critic call failed (TIMEOUT): critic timed out after 600 s' });
    expect(d.calls.filter((c) => c.role === 'synthesizer')).toHaveLength(1);
  });
});

describe('build workflow: budget before every enqueue', () => {
  it('a call over max_calls halts instead of being queued; the synthesizer still gets one call', () => {
    const d = atFirstCritique({ budget: { max_calls: 3 } });
    const r = d.reply(critiqueBody('P1', 'REVISE')); // used: P1, C1 → the reviser would be call 3 … allowed
    expect(pending(d).role).toBe('reviser');
    const r2 = d.reply(proposalBody('P2')); // the critic would be call 4 > 3
    expect(r2.state.haltReason).toBe('max_calls reached: 3 of 3 calls used or in flight');
    expect(d.path.slice(-3)).toEqual(['CRITIQUE', 'HALTED', 'SYNTHESIZE']);
    expect(r2.decisions[1]).toMatchObject({ from: 'CRITIQUE', to: 'HALTED', refs: ['max_calls'] });
    expect(r2.commands).toHaveLength(1);
    expect(pending(d)).toMatchObject({ role: 'synthesizer', label: 'S1' });
    expect(d.prompt()).toContain('max_calls reached');
    const done = d.reply(synthesisBody('REVISE'));
    expect(done.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(done.state.synthesis?.partial).toBe(true);
    expect(r.state.counters.C).toBe(1);
    expect(r2.state.counters.C).toBe(1); // a refused call uses no label
  });

  it('reservations of calls in flight count against the caps', () => {
    const d = driver({ budget: { max_calls: 2 } }).begin();
    const r0 = d.state.usage.reserved;
    d.setUsage({ reserved: { ...r0, calls: r0.calls + 1 } }); // another call still in flight
    const r = d.reply(proposalBody('P1'));
    expect(r.state.haltReason).toBe('max_calls reached: 2 of 2 calls used or in flight');
  });

  it.each([
    // A reservation holds the prompt estimate + the agent's max_tokens (2000): 3200 lets the proposer start, not the critic.
    ['max_tokens', { max_tokens: 3200 }, {}],
    ['max_cost_usd', { max_cost_usd: 0.01 }, {}],
    ['max_seconds', { max_seconds: 5 }, { elapsedSeconds: 5 }],
    ['per_provider.xai.max_calls', { per_provider: { xai: { max_calls: 1 } } }, { reservedByProvider: { xai: { calls: 1, tokens: 0, costUsd: 0 } } }],
    ['per_provider.xai.max_tokens', { per_provider: { xai: { max_tokens: 10 } } }, {}],
    ['per_provider.xai.max_cost_usd', { per_provider: { xai: { max_cost_usd: 0.5 } } }, { usedByProvider: { xai: { calls: 0, tokens: 0, costUsd: 0.5 } } }],
  ])('%s halts before the critic call', (cap, budget, usage) => {
    const d = driver({ budget }).begin();
    d.setUsage(usage);
    const r = d.reply(proposalBody('P1'), { tokens: 1000, costUsd: 0.01 });
    expect(r.decisions[1]).toMatchObject({ to: 'HALTED', refs: [cap] });
    expect(r.state.haltReason).toMatch(new RegExp(`^${cap.replace(/\./g, '\\.')}`));
    expect(d.calls.some((c) => c.role === 'critic')).toBe(false);
    expect(pending(d).role).toBe('synthesizer');
  });

  it('the synthesizer’s provider exhausted → fact-only report, no call at all', () => {
    const d = driver({ budget: { max_calls: 2, per_provider: { anthropic: { max_calls: 1 } } } }).begin();
    const r = d.reply(proposalBody('P1')); // anthropic has used its one call; the critic (xai) trips max_calls? no: per-run 2 allows it
    expect(pending(d).role).toBe('critic');
    const r2 = d.reply(critiqueBody('P1', 'REVISE')); // the reviser (anthropic) is refused; the synthesizer is also anthropic
    expect(r.state.haltReason).toBeNull();
    expect(r2.state.haltReason).toBe('max_calls reached: 2 of 2 calls used or in flight');
    expect(r2.commands).toEqual([]);
    expect(r2.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(r2.decisions[r2.decisions.length - 1].reason).toBe("fact-only report: the synthesizer's provider anthropic has reached its own budget cap");
    expect(r2.records).toContainEqual({ kind: 'synthesis', record: expect.objectContaining({ callId: null, body: null }) });
  });

  it('a synthesizer call refused by the budget halts, then is made once anyway', () => {
    const d = atFirstCritique({ budget: { max_calls: 2 } });
    const r = d.reply(critiqueBody('P1', 'REJECT'));
    expect(d.path.slice(-3)).toEqual(['SYNTHESIZE', 'HALTED', 'SYNTHESIZE']);
    expect(r.commands).toHaveLength(1);
    expect(d.calls.filter((c) => c.role === 'synthesizer')).toHaveLength(1);
  });

  it('emits each budget warning once', () => {
    const d = driver({ budget: { max_calls: 5 } }).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'REVISE'));
    const warnings = () => d.events.filter((e) => e.type === 'budget_warning');
    expect(warnings()).toEqual([]);
    const r = d.reply(proposalBody('P2')); // P1, C1, P2 used + the critic C2 queued here = 4 of 5
    expect(r.events[r.events.length - 1]).toEqual({ type: 'budget_warning', payload: { cap: 'max_calls', used: 4, limit: 5 } });
    expect(r.state.counters['warn:max_calls']).toBe(1);
    d.reply(critiqueBody('P2', 'ACCEPT'));
    expect(warnings()).toHaveLength(1);
  });
});

describe('build workflow: autonomy', () => {
  it.each(['REVISE', 'ACCEPT'] as const)('autonomy 0: after the first critique (%s) → SYNTHESIZE, advice only', (verdict) => {
    const d = atFirstCritique({ autonomy: 0 });
    const r = d.reply(critiqueBody('P1', verdict));
    expect(r.decisions[r.decisions.length - 1]).toMatchObject({ from: 'CRITIQUE', to: 'SYNTHESIZE' });
    expect(r.decisions[0].reason).toContain('autonomy 0');
    expect(pending(d).role).toBe('synthesizer');
  });

  it('autonomy 1: ACCEPT locks the criteria and synthesizes; nothing is implemented', () => {
    const d = atFirstCritique({ autonomy: 1 });
    const r = d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(r.state.criteria).not.toBeNull();
    expect(r.decisions[0]).toMatchObject({ from: 'CRITIQUE', to: 'SYNTHESIZE' });
    expect(r.decisions[0].reason).toContain('autonomy 1');
    d.reply(synthesisBody('ACCEPT'));
    expect(d.calls.map((c) => c.role)).toEqual(['proposer', 'critic', 'synthesizer']);
    expect(d.state.status).toBe('done');
  });

  it('autonomy 1: still revises, and stops before IMPLEMENT at the round limit', () => {
    const d = atRoundLimit({ autonomy: 1 });
    const r = d.reply(critiqueBody('P2', 'REVISE'));
    expect(r.state.unresolved).toBe(true);
    expect(r.decisions[0]).toMatchObject({ to: 'SYNTHESIZE' });
    expect(d.calls.map((c) => c.role)).toEqual(['proposer', 'critic', 'reviser', 'critic', 'synthesizer']);
  });

  it('autonomy 2 runs the whole pipeline', () => {
    const d = atImplement({ autonomy: 2 });
    expect(pending(d).role).toBe('engineer');
  });
});

describe('build workflow: cancel, terminal and stale events', () => {
  it('cancel → cancelled, stage kept, no more commands; later events are ignored', () => {
    const d = atFirstCritique();
    const r = d.step({ type: 'cancel', reason: 'user asked' });
    expect(r.state).toMatchObject({ status: 'cancelled', stage: 'CRITIQUE' });
    expect(r.events).toEqual([{ type: 'run_cancelled', payload: { reason: 'user asked' } }]);
    expect(r.commands).toEqual([]);
    const late = d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(late).toMatchObject({ decisions: [], records: [], commands: [], events: [] });
    expect(late.state.stage).toBe('CRITIQUE');
  });

  it('every event after a terminal status is ignored', () => {
    const d = atFirstCritique();
    d.reply(critiqueBody('P1', 'REJECT'));
    d.reply(synthesisBody('REJECT'));
    const done = d.state;
    for (const event of [
      { type: 'cancel' as const },
      { type: 'start' as const },
      { type: 'tests_failed_to_run' as const, opId: 'x', error: 'boom' },
    ]) {
      const r = decide(done, event, { templates: TEST_TEMPLATES });
      expect(r).toMatchObject({ decisions: [], records: [], commands: [], events: [] });
      expect(r.state).toEqual(done);
      expect(r.verdict).toBe('REJECT');
    }
  });

  it('ignores a reply from a role the current stage is not waiting for, and a duplicate reply', () => {
    const d = atFirstCritique();
    const critic = pending(d);
    const stale = decide(
      d.state,
      {
        type: 'agent_call_finished',
        call: { ...callOf(critic), role: 'proposer', label: 'P9', parsed: proposalBody('P9') },
      },
      { templates: TEST_TEMPLATES },
    );
    expect(stale.events).toEqual([]);
    d.reply(critiqueBody('P1', 'ACCEPT'));
    const dup = buildWorkflow.decide(d.state, { type: 'agent_call_finished', call: { ...callOf(critic), parsed: critiqueBody('P1', 'ACCEPT') } }, { templates: TEST_TEMPLATES });
    expect(dup.events).toEqual([]);
  });
});

function callOf(c: AgentCallCommand) {
  return {
    id: c.callId,
    role: c.role,
    stage: c.stage,
    label: c.label,
    attempt: c.attempt,
    provider: c.provider,
    model: c.model,
    status: 'completed' as const,
    valid: true,
    parsed: null as unknown,
    responseText: null,
    error: null,
    errorCode: null,
    schemaName: c.schemaName,
    messages: c.messages,
  };
}
