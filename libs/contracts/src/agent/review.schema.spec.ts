import { RequirementCheck, Review } from './review.schema';

const check = { requirement: 'Returns 0.0 for an empty series', satisfied: true, evidence: 'test_dd.py::test_empty passes' };

function review(over: Record<string, unknown> = {}) {
  return { implementation_id: 'I1', verdict: 'ACCEPT', requirement_checks: [check], problems: [], confidence: 0.8, ...over };
}

describe('RequirementCheck evidence must cite something a reader can open', () => {
  it.each(['test_dd.py::test_empty', 'dd.py:12', 'see dd.py', 'test_empty_series passes', 'line :40 of the module'])('accepts %j', (evidence) => {
    expect(RequirementCheck.parse({ ...check, evidence }).evidence).toBe(evidence);
  });

  it.each(['looks correct to me', 'I am confident it works', 'Verified'])('rejects %j, saying how to cite', (evidence) => {
    const r = RequirementCheck.safeParse({ ...check, evidence });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['evidence']);
    expect(r.error?.issues[0].message).toMatch(/test_dd\.py::test_empty or dd\.py:12/);
  });

  it('rejects empty evidence', () => {
    const r = RequirementCheck.safeParse({ ...check, evidence: '' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toMatch(/must cite a file\/line or a test name/);
  });

  it('records an unsatisfied requirement as valid data (failing is not malformed)', () => {
    expect(RequirementCheck.parse({ ...check, satisfied: false }).satisfied).toBe(false);
  });
});

describe('Review', () => {
  it('accepts a review with a cited check', () => {
    expect(Review.parse(review())).toEqual(review());
  });

  it('rejects an empty requirement_checks, naming it', () => {
    const r = Review.safeParse(review({ requirement_checks: [] }));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['requirement_checks']);
    expect(r.error?.issues[0].message).toMatch(/every requirement/);
  });

  it('points at the check whose evidence has no citation', () => {
    const r = Review.safeParse(review({ requirement_checks: [check, { ...check, evidence: 'seems fine' }] }));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['requirement_checks.1.evidence']);
  });

  it.each([-0.1, 1.2])('rejects confidence %p', (confidence) => {
    expect(Review.safeParse(review({ confidence })).success).toBe(false);
  });

  it('accepts a REJECT review with problems', () => {
    const r = review({ verdict: 'REJECT', problems: [{ severity: 'blocker', description: 'tests fail', location: 'T1' }] });
    expect(Review.parse(r).verdict).toBe('REJECT');
  });
});
