import { formatZodIssues } from '../agent/agent-schemas';
import {
  Interpretation,
  InterpretationReview,
  TradingInterpretation,
  TradingInterpretationReview,
  readingProblems,
} from './interpretation.schema';
import { Preregistration } from './preregistration.schema';
import { TRADING_CHECKLIST } from './trading-critique.schema';

const prereg = Preregistration.parse({
  title: 'Overnight momentum',
  hypothesis: 'Top-decile momentum outperforms overnight',
  expected_result: 'Sharpe above 0.5 out of sample',
  method: { description: 'Walk-forward backtest', command: 'python backtest.py', metrics: ['sharpe_oos', 'n_trades'] },
  success_criteria: [{ expr: 'sharpe_oos >= 0.5' }, { expr: 'n_trades >= 100' }],
  failure_criteria: [{ expr: 'sharpe_oos < 0' }],
  data: 'CRSP daily',
});

const reading = (criterion_id: string, holds = false) => ({ criterion_id, holds, evidence: `sharpe_oos is 0.3 (${criterion_id})` });

const interpretation = {
  readings: [reading('S1'), reading('S2', true), reading('F1')],
  decision: 'INCONCLUSIVE',
  summary: 'Positive but below the bar',
};

const checklist = Object.fromEntries(
  TRADING_CHECKLIST.map(({ key }) => [
    key,
    key === 'multiple_testing_deflated_sharpe' ? { status: 'checked', evidence: 'one variant', n_trials: 1 } : { status: 'checked', evidence: 'looked' },
  ]),
);

function problems(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, input: unknown): string {
  const r = schema.safeParse(input);
  return r.success ? '' : formatZodIssues(r.error as Parameters<typeof formatZodIssues>[0]);
}

describe('Interpretation', () => {
  it('accepts readings, a decision and a summary, defaulting caveats', () => {
    expect(Interpretation.parse(interpretation).caveats).toEqual([]);
  });

  it('names what is missing or wrong', () => {
    expect(problems(Interpretation, { ...interpretation, readings: [] })).toBe('readings: readings reads every criterion of the preregistration, one each');
    expect(problems(Interpretation, { ...interpretation, decision: 'MAYBE' })).toMatch(/^decision: /);
    expect(problems(Interpretation, { ...interpretation, readings: [{ criterion_id: 'S1', holds: 'yes', evidence: '' }] })).toBe(
      'readings.0.holds: holds is true or false: whether the criterion is met by the metrics; readings.0.evidence: evidence says what in the metrics or the output shows it',
    );
  });
});

describe('InterpretationReview', () => {
  it('accepts agreement with a summary, defaulting disagreements', () => {
    expect(InterpretationReview.parse({ agrees: true, summary: 'reads the numbers right' }).disagreements).toEqual([]);
    expect(problems(InterpretationReview, { agrees: false })).toBe('summary: Invalid input: expected string, received undefined');
  });
});

describe('the trading forms', () => {
  it('require the whole checklist beside the interpretation and the review', () => {
    expect(problems(TradingInterpretation, { ...interpretation, trading_critique: checklist })).toBe('');
    expect(problems(TradingInterpretationReview, { agrees: true, summary: 'ok', trading_critique: checklist })).toBe('');
    expect(problems(TradingInterpretation, interpretation)).toMatch(/^trading_critique: /);
    const { look_ahead_bias: _l, ...short } = checklist;
    expect(problems(TradingInterpretationReview, { agrees: true, summary: 'ok', trading_critique: short })).toBe(
      'trading_critique.look_ahead_bias: Required — every checklist item is answered: checked, not_applicable or problem, with evidence',
    );
  });
});

describe('readingProblems', () => {
  it('is null when each criterion is read exactly once, in any order', () => {
    expect(readingProblems(prereg, { readings: [reading('F1'), reading('S2'), reading('S1')] })).toBeNull();
  });

  it('names the criteria not read, read twice, or not in the preregistration', () => {
    expect(readingProblems(prereg, { readings: [reading('S1'), reading('S1'), reading('F3')] })).toBe(
      'not read: S2, F1; read more than once: S1; no such criterion: F3 (read each of S1, S2, F1 exactly once)',
    );
    expect(readingProblems(prereg, { readings: [reading('S1'), reading('F1')] })).toBe('not read: S2 (read each of S1, S2, F1 exactly once)');
  });
});
