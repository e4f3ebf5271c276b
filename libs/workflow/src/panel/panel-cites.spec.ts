import type { PanelProjectConfigInput } from '@roundtable/contracts';
import { evidenceIdOf, ideaText } from './panel-context-packs';
import { PanelDriver, panelHappyPath, revoteBody, testPanelConfig, verdictBody } from './panel-scenario.fixture';

/**
 * Citations (issue 23): a verdict, re-vote or appeal re-score may cite the evidence ids its prompt
 * showed — the idea's (IE1 …, or a ledger entry's own id such as E3) and an appeal's (E1 … or the
 * ledger's) — and an id the prompt did not show is a validation failure, repaired once.
 */
const started = (overrides: Partial<PanelProjectConfigInput> = {}) => {
  const d = new PanelDriver(testPanelConfig(overrides));
  d.start();
  return d;
};

const withLedger = { idea: { title: 'Swapboard', description: 'shift swaps', target_user: 'nurses', evidence: ['[E3] a trust letter — RLDatix', 'a survey of 40 nurses'] } };

describe('evidence ids in the prompt', () => {
  it("keep a ledger entry's own id and number the rest by place", () => {
    expect(evidenceIdOf('[E3] a trust letter', 'IE1')).toBe('E3');
    expect(evidenceIdOf('a survey', 'IE2')).toBe('IE2');
    expect(evidenceIdOf('[not an id] x', 'IE1')).toBe('IE1');
    const text = ideaText({ title: 't', description: 'd', target_user: 'u', evidence: withLedger.idea.evidence });
    expect(text).toContain('<evidence id="E3" type="idea_evidence"');
    expect(text).toContain('<evidence id="IE2" type="idea_evidence"');
  });
});

describe('a verdict that cites', () => {
  it('an id its prompt showed is accepted', () => {
    const d = started(withLedger);
    const r = d.reply('vc', { ...verdictBody('vc'), cites: ['E3', 'IE2'] });
    expect(r.commands).toEqual([]);
    expect(d.state.verdicts.find((v) => v.judge === 'vc')?.body.cites).toEqual(['E3', 'IE2']);
  });

  it('an id its prompt did not show is repaired once, the message naming it and what may be cited', () => {
    const d = started(withLedger);
    const r = d.reply('vc', { ...verdictBody('vc'), cites: ['E3', 'E9'] });
    expect(r.commands[0]).toMatchObject({ role: 'vc', attempt: 2, label: 'V1' });
    expect(r.commands[0].messages.at(-1)?.content).toContain('cites: E9 is not an evidence id of this prompt; cite only E3, IE2');
  });

  it('with no evidence shown, any citation is refused', () => {
    const d = started({ idea: { title: 't', description: 'd', target_user: 'u', evidence: [] } });
    const r = d.reply('pm', { ...verdictBody('pm'), cites: ['IE1'] });
    expect(r.commands[0].messages.at(-1)?.content).toContain('cite only nothing (it shows no evidence)');
  });
});

describe('an appeal re-score that cites', () => {
  it("may cite the appeal's ledger entries by their own ids, not an id the appeal did not bring", () => {
    const d = panelHappyPath();
    d.appeal(['[E1] the RLDatix partner letter', '[E2] a pilot trust wants it'], ['pm']);
    const bad = d.reply('pm', { ...revoteBody('pm', 8, 6), cites: ['E1', 'E4'] });
    expect(bad.commands[0]).toMatchObject({ role: 'pm', label: 'AP1', attempt: 2, stage: 'APPEAL' });
    expect(bad.commands[0].messages.at(-1)?.content).toContain('cites: E4 is not an evidence id of this prompt');
    d.reply('pm', { ...revoteBody('pm', 8, 6), cites: ['E1', 'E2'] });
    expect(d.eventsOf('appeal_completed')[0].scores).toEqual({ pm: 8 });
  });
});
