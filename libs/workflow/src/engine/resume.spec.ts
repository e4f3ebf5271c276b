import { BuildDriver, critiqueBody, proposalBody, synthesisBody, testConfig } from '../build/build-scenario.fixture';

/**
 * What every workflow's resume, cancel, outright failure and step ending share, through the
 * build: a stopped run reopens with the raised caps (numbers only) and says where it restarts;
 * a run it may not be resumed from is left alone; a step that did nothing warns about nothing.
 */

/** P1, C1 REVISE, then the reviser's call is refused by max_calls 2: halted, S1 written, DONE. */
function halted(): BuildDriver {
  const d = new BuildDriver(testConfig({ budget: { max_calls: 2, max_tokens: 90_000 } })).begin();
  d.reply(proposalBody('P1'));
  d.reply(critiqueBody('P1', 'REVISE'));
  d.reply(synthesisBody('REVISE'));
  expect(d.state).toMatchObject({ status: 'halted', stage: 'DONE' });
  return d;
}

describe('engine: reopening a stopped run', () => {
  it('takes only the caps given as numbers, runs again with no halt reason, and says where it stands', () => {
    const d = halted();
    const caps = { max_calls: 10, max_tokens: undefined, max_seconds: 'soon' } as unknown as Partial<Record<string, number>>;
    const r = d.step({ type: 'resume', at: 'REVISE', rerun: false, caps });
    expect(r.state).toMatchObject({ status: 'running', haltReason: null, stage: 'REVISE' });
    expect(r.state.config.budget).toMatchObject({ max_calls: 10, max_tokens: 90_000, max_seconds: d.results[0].state.config.budget.max_seconds });
    expect(r.events[0]).toEqual({ type: 'run_resumed', payload: { at: 'REVISE', rerun: false, caps: { max_calls: 10 } } });
    expect(r.decisions[0]).toEqual({ from: 'DONE', to: 'REVISE', reason: 'resumed where the halt left the run', refs: [] });
  });

  it('a rerun says it re-runs the stage as asked', () => {
    const d = halted();
    const r = d.step({ type: 'resume', at: 'CRITIQUE', rerun: true, caps: { max_calls: 10 } });
    expect(r.decisions[0]).toEqual({ from: 'DONE', to: 'CRITIQUE', reason: 'resumed: re-running CRITIQUE as asked', refs: [] });
    expect(r.commands[0]).toMatchObject({ role: 'critic', label: 'C2' });
  });

  it('a running or done run is not reopened: nothing changes', () => {
    const running = new BuildDriver(testConfig()).begin();
    const r = running.step({ type: 'resume', at: 'PROPOSE', rerun: true, caps: { max_calls: 99 } });
    expect(r.events).toEqual([]);
    expect(r.decisions).toEqual([]);
    expect(r.commands).toEqual([]);
    expect(r.state.config.budget.max_calls).not.toBe(99);
  });
});

describe('engine: cancel, outright failure and the end of a step', () => {
  it('a cancel without a reason says null', () => {
    const d = new BuildDriver(testConfig()).begin();
    const r = d.step({ type: 'cancel' });
    expect(r.state.status).toBe('cancelled');
    expect(r.events).toEqual([{ type: 'run_cancelled', payload: { reason: null } }]);
  });

  it('a failed run records its reason as the halt reason, in a decision that refs nothing', () => {
    const d = new BuildDriver(testConfig());
    d.start();
    const r = d.step({ type: 'workspace_failed', opId: 'run1-op1', error: 'repo /x is not readable' });
    const reason = 'workspace could not be prepared: repo /x is not readable';
    expect(r.state).toMatchObject({ status: 'failed', stage: 'HALTED', haltReason: reason });
    expect(r.decisions).toEqual([{ from: 'INIT', to: 'HALTED', reason, refs: [] }]);
    expect(r.events.map((e) => e.type)).toEqual(['stage_changed', 'run_failed']);
  });

  it('a step that changes nothing warns about nothing, even with the caps past 80 %', () => {
    const d = new BuildDriver(testConfig({ budget: { max_calls: 10 } })).begin();
    d.setUsage({ used: { calls: 9, tokens: 0, costUsd: 0 } });
    // a reply nobody waits for: another role than the stage's
    const p1 = d.pendingCall!;
    const r = d.step({
      type: 'agent_call_finished',
      call: { ...p1, id: p1.callId, role: 'critic', status: 'completed', valid: true, parsed: {}, responseText: null, error: null, errorCode: null },
    } as never);
    expect(r.events).toEqual([]);
    expect(r.state.counters).toEqual(d.results.at(-2)!.state.counters);
  });
});
