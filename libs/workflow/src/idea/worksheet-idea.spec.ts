import { Idea, Worksheet } from '@roundtable/contracts';
import { applyEdit, evidenceText, ideaOfWorksheet, worksheetDiff } from './worksheet-idea';

const W = Worksheet.parse({
  title: ' Swapboard ',
  problem: 'swaps wait two days',
  target_user: 'ward nurses',
  solution: 'an app to post and claim shifts',
  evidence: ['E2'],
  assumptions: ['managers approve in the app'],
  open_risks: ['no roster API'],
});
const LEDGER = new Map([['E2', { id: 'E2', claim: '31 swaps in March', source: 'ward log' }]]);

describe('a worksheet version as the panel\'s idea', () => {
  it('is an Idea the panel takes: evidence is the cited entries, each prefixed with its id', () => {
    const idea = Idea.parse(ideaOfWorksheet(W, LEDGER));
    expect(idea).toEqual({
      title: 'Swapboard',
      description: 'an app to post and claim shifts\nProblem: swaps wait two days\nAssumptions: managers approve in the app\nOpen risks: no roster API',
      target_user: 'ward nurses',
      evidence: ['[E2] 31 swaps in March — ward log'],
    });
    expect(evidenceText({ id: 'E1', claim: 'c', source: 's' })).toBe('[E1] c — s');
  });

  it('refuses a cited id the ledger does not hold', () => {
    expect(() => ideaOfWorksheet({ ...W, evidence: ['E9'] }, LEDGER)).toThrow('E9');
  });

  it('an edit replaces the fields it gives and keeps the rest; the base is not changed', () => {
    const next = applyEdit(W, { problem: 'new', assumptions: [] });
    expect(next).toEqual({ ...W, problem: 'new', assumptions: [] });
    expect(W.problem).toBe('swaps wait two days');
  });

  it('diffs field by field', () => {
    const d = worksheetDiff('idea_x', { version: 1, worksheet: W }, { version: 3, worksheet: applyEdit(W, { title: 'B', evidence: [] }) });
    expect(d.fields.filter((f) => f.changed).map((f) => [f.field, f.from, f.to])).toEqual([
      ['title', ' Swapboard ', 'B'],
      ['evidence', ['E2'], []],
    ]);
    expect(d.fields).toHaveLength(8);
  });
});
