import type { ProjectConfigInput } from '@roundtable/contracts';
import { renderBuildReport } from '../report';
import { BuildDriver, implementationBody, proposalBody, critiqueBody, reviewBody, synthesisBody, testConfig, testResult } from './build-scenario.fixture';
import type { AgentCallCommand, BuildRunState } from './build-types';
import { SOLO_PLAN_ID } from './context-packs';
import { SOLO_NO_SYNTHESIZER } from './solo';

/** The solo pipeline (issue 25): the engineer alone, the tests and the fix rounds, a fact-only close. */

const solo = (overrides: Partial<ProjectConfigInput> = {}) => new BuildDriver(testConfig({ pipeline: 'solo', ...overrides }));

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

const roles = (d: BuildDriver) => d.calls.map((c) => c.role);
const report = (state: BuildRunState, d: BuildDriver) =>
  renderBuildReport({ state, decisions: d.decisions, audit: { calls: d.calls.length, failedCalls: 0, inputTokens: 1, outputTokens: 1, costUsd: null, seconds: 1 } });

describe('solo pipeline: the engineer first, from the objective and requirements', () => {
  it('asks the engineer first, with the requirements locked as the criteria; no proposer or critic call', () => {
    const d = solo();
    d.start();
    const r = d.prepare(['README.md']);
    expect(r.commands).toHaveLength(1);
    expect(r.commands[0]).toMatchObject({ kind: 'agent_call', role: 'engineer', stage: 'IMPLEMENT', label: 'I1', provider: 'openai', contextRefs: [] });
    expect(r.decisions).toEqual([
      {
        from: 'INIT',
        to: 'IMPLEMENT',
        reason: 'workspace ready at /ws/run1 (1 file); solo pipeline: no debate, the engineer works from the objective and 2 requirements (locked as the acceptance criteria)',
        refs: [],
      },
    ]);
    const criteria = [
      { id: 'AC1', text: 'Returns 0.0 for monotonically increasing or empty series' },
      { id: 'AC2', text: 'Handles a series that ends at its trough' },
    ];
    expect(r.state.criteria).toEqual(criteria);
    expect(r.events).toContainEqual({ type: 'criteria_locked', payload: { criteria } });
    const prompt = d.prompt();
    expect(prompt).toContain('Implement max_drawdown(equity) in dd.py with pytest tests.');
    expect(prompt).toContain('AC2: Handles a series that ends at its trough');
    expect(prompt).toContain('pipeline: solo');
    expect(prompt).toContain(`## proposal_id\n${SOLO_PLAN_ID}`);
    expect(prompt).toContain('## proposal\n(none: this run has no debate (pipeline: solo).');
    expect(r.state.proposals).toEqual([]);
  });

  it('records the implementation with no proposal, and applies it', () => {
    const d = solo().begin();
    const r = d.reply(implementationBody(SOLO_PLAN_ID));
    expect(r.records).toContainEqual({ kind: 'implementation', record: expect.objectContaining({ label: 'I1', proposalLabel: null, fixRound: 0, status: 'pending' }) });
    expect(r.commands).toEqual([{ kind: 'workspace.apply', opId: 'run1-op2', implementationLabel: 'I1' }]);
  });
});

describe('solo pipeline: tests, fix rounds and the fact-only close', () => {
  it('failing tests → a fix round → passing → done, closed fact-only with no synthesizer call', () => {
    const d = solo().begin();
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    const fail = d.tests(testResult(1));
    expect(fail.decisions[0]).toMatchObject({ from: 'TEST', to: 'FIX', reason: 'T1 failed (exit 1): fix round 1 of 1' });
    expect(pending(d)).toMatchObject({ role: 'engineer', stage: 'FIX', label: 'I1f1' });
    expect(d.prompt()).toContain('Fix round 1 of 1: implementation I1 failed its tests in T1.');
    d.reply(implementationBody(SOLO_PLAN_ID, [{ path: 'dd.py', content: 'def max_drawdown(equity):\n    return 0.5\n' }]));
    d.applied();
    const done = d.tests(testResult(0, { passed: 5 }));

    expect(roles(d)).toEqual(['engineer', 'engineer']);
    expect(done.commands).toEqual([]);
    expect(done.state).toMatchObject({ stage: 'DONE', status: 'done', haltReason: null, fixRound: 1 });
    expect(done.state.synthesis).toEqual({ id: 'run1-S1', label: 'S1', callId: null, partial: false, body: null });
    expect(done.records).toContainEqual({ kind: 'synthesis', record: done.state.synthesis });
    const why = `fact-only report: ${SOLO_NO_SYNTHESIZER}; T2 passed (exit 0; 5 passed, 0 failed, 0 errors) on I1f1, 1 of 1 fix round used`;
    expect(done.decisions).toEqual([{ from: 'TEST', to: 'DONE', reason: why, refs: ['S1'] }]);
    expect(done.events.slice(-1)).toEqual([{ type: 'run_completed', payload: { status: 'done', verdict: null, confidence: null } }]);
    expect(done.verdict).toBeNull();
    expect(d.path).toEqual(['IMPLEMENT', 'TEST', 'FIX', 'TEST', 'DONE']);
    const text = report(done.state, d);
    expect(text).toContain(`Overall verdict: none — no synthesis: fact-only report (${SOLO_NO_SYNTHESIZER}; T2 passed`);
    expect(text).toContain('for the objective and requirements (solo)');
  });

  it('fix rounds used up → ends as a team run whose fixes ran out (done), closed fact-only', () => {
    const d = solo().begin();
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    d.tests(testResult(1));
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    const done = d.tests(testResult(1, { passed: 3, failed: 2 }));

    expect(roles(d)).toEqual(['engineer', 'engineer']);
    expect(done.decisions).toEqual([
      {
        from: 'TEST',
        to: 'DONE',
        reason: `fact-only report: ${SOLO_NO_SYNTHESIZER}; T2 failed (exit 1; 3 passed, 2 failed, 0 errors) on I1f1 and the fix rounds are used up (1 of 1 fix round used)`,
        refs: ['S1'],
      },
    ]);
    expect(done.state.synthesis).toMatchObject({ label: 'S1', callId: null, body: null });

    // The team run whose fix rounds ran out: the validator and the synthesizer, then the same status.
    const team = new BuildDriver(testConfig()).begin();
    team.reply(proposalBody('P1'));
    team.reply(critiqueBody('P1', 'ACCEPT'));
    team.reply(implementationBody('P1'));
    team.applied();
    team.tests(testResult(1));
    team.reply(implementationBody('P1'));
    team.applied();
    team.tests(testResult(1));
    team.reply(reviewBody('I1f1', 'REVISE'));
    const teamDone = team.reply(synthesisBody('REVISE'));
    expect(done.state.status).toBe(teamDone.state.status);
    expect(done.state.stage).toBe(teamDone.state.stage);
    expect(done.events.slice(-1)[0].payload).toMatchObject({ status: teamDone.state.status });
  });

  it('max_fix_rounds 0: a failing first run closes at once', () => {
    const d = solo({ budget: { max_fix_rounds: 0 } }).begin();
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    const done = d.tests(testResult(2));
    expect(done.state).toMatchObject({ stage: 'DONE', status: 'done', fixRound: 0 });
    expect(roles(d)).toEqual(['engineer']);
  });

  it('a budget halt closes fact-only, never with a synthesizer call', () => {
    const d = solo({ budget: { max_calls: 1 } }).begin();
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    const r = d.tests(testResult(1)); // the fix round would be call 2 > 1
    expect(r.state.haltReason).toBe('max_calls reached: 1 of 1 calls used or in flight');
    expect(r.commands).toEqual([]);
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(r.state.synthesis).toMatchObject({ callId: null, body: null, partial: true });
    expect(r.decisions.slice(-1)[0].reason).toBe(`fact-only report: ${SOLO_NO_SYNTHESIZER}`);
    expect(roles(d)).toEqual(['engineer']);
  });

  it("the engineer's failure halts the run and closes fact-only (after the engine's own repair)", () => {
    const d = solo().begin();
    d.invalid('files: required');
    expect(pending(d)).toMatchObject({ role: 'engineer', attempt: 2 });
    const r = d.invalid('files: required');
    expect(r.state.haltReason).toMatch(/^FAILED_SCHEMA: engineer reply failed its schema twice/);
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(roles(d)).toEqual(['engineer', 'engineer']);
  });

  it('a resumed solo run asks the engineer again (never a proposer), and closes fact-only', () => {
    const d = solo({ budget: { max_calls: 1 } }).begin();
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    d.tests(testResult(1));
    const resumed = d.step({ type: 'resume', at: 'FIX', rerun: false, caps: { max_calls: 4 } });
    expect(resumed.state.status).toBe('running');
    expect(pending(d)).toMatchObject({ role: 'engineer', stage: 'FIX', label: 'I1f1' });
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    const done = d.tests(testResult(0));
    expect(done.state).toMatchObject({ stage: 'DONE', status: 'done' });
    expect(done.state.synthesis).toMatchObject({ label: 'S2', callId: null });
    expect(roles(d)).toEqual(['engineer', 'engineer']);
  });

  it.each(['PROPOSE', 'CRITIQUE'] as const)('a resume at %s starts the engineer in IMPLEMENT', (at) => {
    const d = solo({ budget: { max_calls: 1 } }).begin();
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    d.tests(testResult(1));
    const r = d.step({ type: 'resume', at, rerun: true, caps: { max_calls: 4 } });
    expect(r.decisions.map((x) => x.to)).toEqual([at, 'IMPLEMENT']);
    expect(pending(d)).toMatchObject({ role: 'engineer', stage: 'IMPLEMENT' });
  });

  it('a resume at REVIEW or SYNTHESIZE closes on the last test run, with no call', () => {
    const d = solo({ budget: { max_calls: 1 } }).begin();
    d.reply(implementationBody(SOLO_PLAN_ID));
    d.applied();
    d.tests(testResult(1));
    const r = d.step({ type: 'resume', at: 'SYNTHESIZE', rerun: false });
    expect(r.commands).toEqual([]);
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'done' });
    expect(r.decisions.slice(-1)[0].reason).toBe(`fact-only report: ${SOLO_NO_SYNTHESIZER}; T1 failed (exit 1; 4 passed, 1 failed, 0 errors) on I1 and the fix rounds are used up (1 of 1 fix round used)`);
    // (fix round 1 was entered when T1 failed; its engineer call was the one max_calls refused)
  });
});

describe('solo pipeline: the engineer reads and works as it does in a team run', () => {
  it('a file request on a repository is read, and the engineer is asked again from the objective', () => {
    const d = solo({ repo: '/repos/app' }).begin(['dd.py']);
    expect(pending(d).schemaName).toBe('ImplementationOrFilesRequested');
    d.reply({ paths: ['dd.py'], reason: 'to see the code' });
    expect(d.lastOp).toMatchObject({ kind: 'workspace.read', role: 'engineer', label: 'I1', paths: ['dd.py'] });
    d.read({ 'dd.py': 'def max_drawdown(e): pass\n' });
    expect(pending(d)).toMatchObject({ role: 'engineer', label: 'I1' });
    expect(d.prompt()).toContain('def max_drawdown(e): pass');
    expect(roles(d)).toEqual(['engineer', 'engineer']);
  });

  it('agent mode on an API provider: the tool loop goes turn by turn with no proposal', () => {
    const base = testConfig();
    const d = solo({ agents: { ...base.agents, engineer: { ...base.agents.engineer, mode: 'agent' } } } as never).begin(['dd.py']);
    expect(pending(d)).toMatchObject({ role: 'engineer', label: 'I1', schemaName: 'EngineerTurn' });
    d.reply({ tool_calls: [], text: 'thinking' });
    expect(pending(d)).toMatchObject({ role: 'engineer', label: 'I1' });
    expect(roles(d)).toEqual(['engineer', 'engineer']);
  });
});
