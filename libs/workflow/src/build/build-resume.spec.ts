import { critiqueBody, implementationBody, problem, proposalBody, reviewBody, synthesisBody, testConfig, testResult, BuildDriver } from './build-scenario.fixture';

/** P1 → C1 REVISE → P2, then the critic call is refused by max_calls 3 → HALTED → S1 (partial). */
function haltedBeforeSecondCritique(): BuildDriver {
  const d = new BuildDriver(testConfig({ budget: { max_calls: 3 } })).begin();
  d.reply(proposalBody('P1'));
  d.reply(critiqueBody('P1', 'REVISE'));
  d.reply(proposalBody('P2'));
  d.reply(synthesisBody('REVISE'));
  return d;
}

describe('build workflow: resume', () => {
  it('restarts where the halt left the run, with raised caps, and completes', () => {
    const d = haltedBeforeSecondCritique();
    expect(d.state).toMatchObject({ status: 'halted', stage: 'DONE' });
    const r = d.step({ type: 'resume', at: 'CRITIQUE', rerun: false, caps: { max_calls: 20 } });
    expect(r.state).toMatchObject({ status: 'running', stage: 'CRITIQUE', haltReason: null });
    expect(r.state.config.budget.max_calls).toBe(20);
    expect(r.events.map((e) => e.type)).toEqual(expect.arrayContaining(['run_resumed', 'stage_changed', 'agent_call_queued']));
    // No critique of P2 was recorded, so the critic is asked about P2 (label C2, not C1 again).
    expect(r.commands).toHaveLength(1);
    expect(r.commands[0]).toMatchObject({ kind: 'agent_call', role: 'critic', label: 'C2' });

    d.reply(critiqueBody('P2', 'ACCEPT'));
    d.reply(implementationBody('P2'));
    d.applied();
    d.tests(testResult(0));
    d.reply(reviewBody('I1'));
    const done = d.reply(synthesisBody('ACCEPT'));
    expect(done.state).toMatchObject({ status: 'done', stage: 'DONE' });
    expect(done.state.synthesis).toMatchObject({ label: 'S2', partial: false });
    expect(done.verdict).toBe('ACCEPT');
  });

  it("a resume at FIX after the fix round's implementation was rejected asks for the next fix round (its reply is not a duplicate)", () => {
    const d = new BuildDriver(testConfig({ budget: { max_fix_rounds: 2 } })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    d.reply(implementationBody('P1'));
    d.applied();
    d.tests(testResult(1));
    d.reply(implementationBody('P1')); // I1f1
    d.rejected('"../x" escapes the workspace');
    d.reply(synthesisBody('REVISE'));
    d.step({ type: 'resume', at: 'FIX', rerun: false, caps: { max_calls: 40 } });
    expect(d.pendingCall).toMatchObject({ role: 'engineer', label: 'I1f2' });
    const r = d.reply(implementationBody('P1'));
    expect(r.commands).toEqual([expect.objectContaining({ kind: 'workspace.apply', implementationLabel: 'I1f2' })]);
  });

  it('applies a critique already recorded for the current proposal instead of paying for it again', () => {
    // C1 REVISE is recorded, then the reviser call is refused: resuming at CRITIQUE re-applies C1.
    const d = new BuildDriver(testConfig({ budget: { max_calls: 2 } })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'REVISE')); // reviser would be call 3 > 2 → halt
    expect(d.state.haltReason).toMatch(/max_calls/);
    d.reply(synthesisBody('REVISE'));
    const callsBefore = d.calls.length;
    const r = d.step({ type: 'resume', at: 'REVISE', rerun: false, caps: { max_calls: 10 } });
    expect(r.commands[0]).toMatchObject({ role: 'reviser', label: 'P2' });
    expect(d.calls.length).toBe(callsBefore + 1);

    const e = new BuildDriver(testConfig({ budget: { max_calls: 2 } })).begin();
    e.reply(proposalBody('P1'));
    e.reply(critiqueBody('P1', 'REVISE'));
    e.reply(synthesisBody('REVISE'));
    const applied = e.step({ type: 'resume', at: 'CRITIQUE', rerun: false, caps: { max_calls: 10 } });
    // C1 is applied again (no critic call): its REVISE sends the run to the reviser.
    expect(applied.commands).toHaveLength(1);
    expect(applied.commands[0]).toMatchObject({ role: 'reviser', label: 'P2' });
    expect(e.calls.filter((c) => c.role === 'critic')).toHaveLength(1);
  });

  it('--from CRITIQUE re-runs the critique even when one is recorded', () => {
    const d = new BuildDriver(testConfig({ budget: { max_calls: 2 } })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'REVISE'));
    d.reply(synthesisBody('REVISE'));
    const r = d.step({ type: 'resume', at: 'CRITIQUE', rerun: true, caps: { max_calls: 10 } });
    expect(r.commands[0]).toMatchObject({ role: 'critic', label: 'C2' });
    expect(r.decisions[0].reason).toMatch(/re-running CRITIQUE/);
  });

  it('a needs_input run resumes once max_rounds is raised', () => {
    const d = new BuildDriver(testConfig({ budget: { max_rounds: 1 } })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'REVISE', { problems: [problem('major', 'edge case')] }));
    d.reply(proposalBody('P2'));
    d.reply(critiqueBody('P2', 'REVISE', { problems: [problem('blocker', 'still wrong')] }));
    expect(d.state.status).toBe('needs_input');
    const r = d.step({ type: 'resume', at: 'CRITIQUE', rerun: false, caps: { max_rounds: 2 } });
    expect(r.state.round).toBe(2);
    expect(r.commands[0]).toMatchObject({ role: 'reviser', label: 'P3' });
  });

  it('is ignored for a run that is running or done', () => {
    const d = new BuildDriver().begin();
    const r = d.step({ type: 'resume', at: 'PROPOSE', rerun: true });
    expect(r.commands).toEqual([]);
    expect(r.events).toEqual([]);
    expect(r.state.status).toBe('running');
  });
});

describe('build workflow: cancel', () => {
  it('ends the run cancelled between steps; a late reply changes nothing', () => {
    const d = new BuildDriver().begin();
    const r = d.step({ type: 'cancel', reason: 'user asked' });
    expect(r.state.status).toBe('cancelled');
    expect(r.events.map((e) => e.type)).toEqual(['run_cancelled']);
    expect(r.commands).toEqual([]);
    const late = d.reply(proposalBody('P1'));
    expect(late.commands).toEqual([]);
    expect(late.records).toEqual([]);
    expect(late.state.status).toBe('cancelled');
  });
});
