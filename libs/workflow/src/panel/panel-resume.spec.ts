import { JUDGES, type PanelStage } from '@roundtable/contracts';
import { moderatorBody, PanelDriver, panelHappyPath, testPanelConfig, turnBody } from './panel-scenario.fixture';

/** The stage the halting decision left: where a plain resume restarts (the orchestrator reads the same decision). */
function haltedFrom(d: PanelDriver): PanelStage {
  const halt = [...d.decisions].reverse().find((x) => x.to === 'HALTED');
  if (!halt) throw new Error('the run never halted');
  return halt.from as PanelStage;
}

/** A panel halted by max_calls 8 after three debate turns of round 1: the moderator wrote the partial synthesis. */
function haltedMidDebate(): PanelDriver {
  const d = new PanelDriver(testPanelConfig({ max_debate_rounds: 2, budget: { max_calls: 8 } }));
  d.start();
  d.roast();
  d.reply('vc', turnBody('vc', 1));
  d.reply('engineer', turnBody('engineer', 1));
  d.reply('pm', turnBody('pm', 1));
  d.reply('moderator', moderatorBody({ overall_recommendation: 'NO-GO' }));
  return d;
}

const resume = (d: PanelDriver, caps: Record<string, number> = { max_calls: 100 }) => d.step({ type: 'resume', at: haltedFrom(d), rerun: false, caps });

describe('panel workflow: resume', () => {
  it('a panel halted mid-debate resumes at the next speaker and ends like an undisturbed run, no recorded call asked again', () => {
    const d = haltedMidDebate();
    expect(d.state.status).toBe('halted');
    expect(d.state.moderator?.partial).toBe(true);
    expect(haltedFrom(d)).toBe('DEBATE');
    const before = d.calls.length;

    const r = resume(d);
    expect(r.state.status).toBe('running');
    expect(r.state.haltReason).toBeNull();
    expect(r.state.config.budget.max_calls).toBe(100);
    expect(d.eventsOf('run_resumed')).toEqual([{ at: 'DEBATE', rerun: false, caps: { max_calls: 100 } }]);
    // the customer speaks next, in round 1: nobody who spoke is asked again
    expect(r.commands.map((c) => [c.role, c.label])).toEqual([['customer', 'D4']]);

    d.reply('customer', turnBody('customer', 1));
    d.reply('competitor', turnBody('competitor', 1));
    d.debateRound(2);
    d.revote({ vc: 5, customer: 7 });
    d.reply('moderator', moderatorBody());

    const undisturbed = panelHappyPath();
    expect(d.state.status).toBe('done');
    expect(d.state.moderator?.partial).toBe(false);
    expect(d.state.turns.map((t) => [t.label, t.speaker, t.round])).toEqual(undisturbed.state.turns.map((t) => [t.label, t.speaker, t.round]));
    expect(d.state.revotes.map((v) => [v.judge, v.score])).toEqual(undisturbed.state.revotes.map((v) => [v.judge, v.score]));
    expect(d.eventsOf('run_completed').at(-1)).toMatchObject({ status: 'done', verdict: 'ITERATE' });
    // every label but the moderator's was asked exactly once; the halt's partial synthesis is M1, the whole one M2
    const labels = d.calls.map((c) => c.label);
    expect(labels.filter((l) => !l.startsWith('M'))).toEqual(undisturbed.calls.map((c) => c.label).filter((l) => !l.startsWith('M')));
    expect(labels.filter((l) => l.startsWith('M'))).toEqual(['M1', 'M2']);
    expect(d.calls.length - before).toBe(undisturbed.calls.length - 8);
  });

  it('a panel halted in the roast asks only the judges with no verdict', () => {
    const d = new PanelDriver(testPanelConfig({ budget: { max_calls: 4 } }));
    d.start();
    d.roast();
    d.reply('moderator', moderatorBody());
    expect(d.state.status).toBe('halted');
    expect(haltedFrom(d)).toBe('ROAST');
    const r = resume(d);
    expect(r.commands.map((c) => c.role)).toEqual(['competitor']);
    d.roast();
    // the five verdicts are in: the panel is assessed and the debate starts
    expect(d.state.stage).toBe('DEBATE');
    expect(d.state.verdicts.map((v) => v.judge).sort()).toEqual([...JUDGES].sort());
  });

  it('a halted re-vote asks only the judges that have not re-scored', () => {
    const d = new PanelDriver(testPanelConfig({ max_debate_rounds: 1, budget: { max_calls: 13 } }));
    d.start();
    d.roast();
    d.debateRound(1);
    // 10 calls used; 3 of the 5 re-votes fit
    expect(d.pendingRoles().sort()).toEqual(['engineer', 'pm', 'vc']);
    d.revote();
    d.reply('moderator', moderatorBody());
    expect(haltedFrom(d)).toBe('REVOTE');
    const r = resume(d);
    expect(r.commands.map((c) => c.role)).toEqual(['customer', 'competitor']);
    d.revote();
    d.reply('moderator', moderatorBody());
    expect(d.state.status).toBe('done');
    expect(d.state.revotes.filter((v) => v.phase === 'revote')).toHaveLength(5);
  });

  it('is refused on a failed, a done or a cancelled panel: nothing changes', () => {
    const done = panelHappyPath();
    const r = done.step({ type: 'resume', at: 'DEBATE', rerun: false, caps: {} });
    expect(r.commands).toEqual([]);
    expect(r.events).toEqual([]);
    expect(r.state.status).toBe('done');

    const cancelled = new PanelDriver(testPanelConfig());
    cancelled.start();
    cancelled.cancel();
    expect(cancelled.step({ type: 'resume', at: 'ROAST', rerun: false, caps: {} }).state.status).toBe('cancelled');
  });
});

describe('panel workflow: the reconciler halt', () => {
  it('halts a running panel through its own closing: the call in flight lands, then the moderator gets one call', () => {
    const d = new PanelDriver(testPanelConfig({ max_debate_rounds: 1 }));
    d.start();
    d.roast();
    const r = d.step({ type: 'halt', reason: 'reconciler: nothing in flight' });
    expect(r.state.stage).toBe('HALTED');
    expect(r.events.map((e) => e.type)).toContain('run_halted');
    expect(r.commands).toEqual([]);
    // the vc's turn was in flight: it lands and is kept, and no next speaker is asked
    const landed = d.reply('vc', turnBody('vc', 1));
    expect(landed.commands.map((c) => c.role)).toEqual(['moderator']);
    d.reply('moderator', moderatorBody());
    expect(d.state.status).toBe('halted');
    expect(d.state.turns).toHaveLength(1);
  });

  it('a second halt while the first waits (its call never lands) closes fact-only', () => {
    const d = new PanelDriver(testPanelConfig({ max_debate_rounds: 1 }));
    d.start();
    d.roast();
    d.step({ type: 'halt', reason: 'first' });
    const r = d.step({ type: 'halt', reason: 'second' });
    expect(r.state.status).toBe('halted');
    expect(r.state.moderator).toMatchObject({ partial: true, body: null });
    expect(d.decisions.at(-1)?.reason).toBe('fact-only close: halted again while halted: second');
  });

  it('a finished panel ignores a halt', () => {
    const d = panelHappyPath();
    const r = d.step({ type: 'halt', reason: 'late' });
    expect(r.events).toEqual([]);
    expect(r.state.status).toBe('done');
  });
});
