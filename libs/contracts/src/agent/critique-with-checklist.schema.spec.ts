import { AGENT_SCHEMAS, formatZodIssues } from './agent-schemas';
import { checklistOf, CritiqueWithChecklist } from './critique.schema';
import { TRADING_CHECKLIST } from '../experiment/trading-critique.schema';

function checklist(): Record<string, Record<string, unknown>> {
  const c: Record<string, Record<string, unknown>> = {};
  for (const { key } of TRADING_CHECKLIST) c[key] = { status: 'checked', evidence: `looked at ${key}` };
  c.multiple_testing_deflated_sharpe.n_trials = 3;
  return c;
}

function critique(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    proposal_id: 'P1',
    verdict: 'REVISE',
    problems: [{ severity: 'major', description: 'the signal uses the close it trades at', location: 'approach' }],
    counterarguments: [],
    tests_required: ['shift the signal one bar and compare'],
    confidence: 0.7,
    trading_critique: checklist(),
    ...over,
  };
}

function problems(input: unknown, schema: 'CritiqueWithChecklist' | 'CritiqueWithChecklistOrFilesRequested' = 'CritiqueWithChecklist'): string {
  const r = AGENT_SCHEMAS[schema].safeParse(input);
  return r.success ? '' : formatZodIssues(r.error);
}

describe('CritiqueWithChecklist (a trading build\'s critique, issue 24)', () => {
  it('accepts a critique with every checklist item answered, and keeps the checklist', () => {
    const r = CritiqueWithChecklist.safeParse(critique());
    expect(r.success).toBe(true);
    expect(Object.keys(checklistOf(r.data)!)).toHaveLength(15);
  });

  it('refuses a critique missing one checklist item, naming it', () => {
    const c = critique();
    delete (c.trading_critique as Record<string, unknown>).look_ahead_bias;
    const text = problems(c);
    expect(text).toMatch(/^trading_critique\.look_ahead_bias: Required — every checklist item is answered/);
    expect(text.split('; ')).toHaveLength(1);
  });

  it('names the missing item through the "or files requested" form too (the repair call reads it)', () => {
    const c = critique();
    delete (c.trading_critique as Record<string, unknown>).data_quality;
    expect(problems(c, 'CritiqueWithChecklistOrFilesRequested')).toContain('trading_critique.data_quality: Required');
    expect(problems({ paths: ['backtest.py'] }, 'CritiqueWithChecklistOrFilesRequested')).toBe('');
  });

  it('refuses a critique with no checklist at all', () => {
    expect(problems(critique({ trading_critique: undefined }))).toMatch(/^trading_critique: /);
  });

  it("keeps Critique's own rules: a REJECT with no problems fails, an ACCEPT with nothing checked fails", () => {
    expect(problems(critique({ verdict: 'REJECT', problems: [] }))).toBe('problems: a REJECT verdict must list at least one problem');
    expect(problems(critique({ verdict: 'ACCEPT', problems: [], counterarguments: [] }))).toContain('counterarguments: an ACCEPT with zero problems');
  });

  it('checklistOf finds no checklist on a general critique', () => {
    expect(checklistOf({ verdict: 'ACCEPT' })).toBeUndefined();
    expect(checklistOf(null)).toBeUndefined();
  });
});
