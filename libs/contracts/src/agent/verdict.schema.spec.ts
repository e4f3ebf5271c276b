import { Confidence, Problem, Severity, Verdict } from './verdict.schema';

describe('Verdict and Severity', () => {
  it('hold exactly the seed §6 values', () => {
    expect(Verdict.options).toEqual(['ACCEPT', 'REVISE', 'REJECT', 'NEEDS_EVIDENCE', 'NEEDS_EXPERIMENT']);
    expect(Severity.options).toEqual(['blocker', 'major', 'minor']);
  });

  it('are case-sensitive, because agents are told the exact spelling', () => {
    expect(Verdict.safeParse('accept').success).toBe(false);
    expect(Severity.safeParse('Major').success).toBe(false);
  });
});

describe('Confidence', () => {
  it.each([0, 0.5, 1])('accepts %p', (c) => {
    expect(Confidence.parse(c)).toBe(c);
  });

  it.each([-0.1, 1.2, 80, Number.NaN])('rejects %p with a message giving the range', (c) => {
    const r = Confidence.safeParse(c);
    expect(r.success).toBe(false);
    if (!Number.isNaN(c)) expect(r.error?.issues[0].message).toBe('confidence must be in [0,1]');
  });

  it('rejects a confidence written as a string', () => {
    expect(Confidence.safeParse('0.9').success).toBe(false);
  });
});

describe('Problem', () => {
  it('takes a location optionally (null and absent both fine)', () => {
    expect(Problem.parse({ severity: 'major', description: 'drawdown of a zero peak divides by zero' })).toEqual({
      severity: 'major',
      description: 'drawdown of a zero peak divides by zero',
    });
    expect(Problem.parse({ severity: 'minor', description: 'x', location: null }).location).toBeNull();
    expect(Problem.parse({ severity: 'blocker', description: 'x', location: 'dd.py:12' }).location).toBe('dd.py:12');
  });

  it('rejects an empty description and an unknown severity', () => {
    expect(Problem.safeParse({ severity: 'major', description: '' }).success).toBe(false);
    expect(Problem.safeParse({ severity: 'critical', description: 'x' }).success).toBe(false);
  });
});
