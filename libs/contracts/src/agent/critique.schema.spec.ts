import { Critique } from './critique.schema';

const problem = { severity: 'major' as const, description: 'a zero peak divides by zero', location: 'dd.py:7' };

function critique(over: Record<string, unknown> = {}) {
  return {
    proposal_id: 'P1',
    verdict: 'ACCEPT',
    problems: [],
    counterarguments: ['checked the empty series and the all-increasing series'],
    tests_required: [],
    confidence: 0.7,
    ...over,
  };
}

function issuePaths(input: unknown): string[] {
  const r = Critique.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
}

describe('Critique anti-sycophancy rules (seed §6)', () => {
  it('rejects an ACCEPT with zero problems and no counterarguments, naming counterarguments', () => {
    const r = Critique.safeParse(critique({ counterarguments: [] }));
    expect(r.success).toBe(false);
    expect(r.error?.issues).toHaveLength(1);
    expect(r.error?.issues[0].path).toEqual(['counterarguments']);
    expect(r.error?.issues[0].message).toMatch(/what was checked/);
  });

  it('treats blank counterarguments as none', () => {
    expect(issuePaths(critique({ counterarguments: ['', '   '] }))).toEqual(['counterarguments']);
  });

  it('accepts an ACCEPT with zero problems when counterarguments say what was checked', () => {
    expect(Critique.safeParse(critique()).success).toBe(true);
  });

  it('accepts an ACCEPT that lists (minor) problems even without counterarguments', () => {
    expect(Critique.safeParse(critique({ problems: [{ ...problem, severity: 'minor' }], counterarguments: [] })).success).toBe(true);
  });

  it.each(['REVISE', 'REJECT'])('rejects a %s with zero problems, naming problems', (verdict) => {
    const r = Critique.safeParse(critique({ verdict }));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['problems']);
    expect(r.error?.issues[0].message).toContain(`a ${verdict} verdict must list at least one problem`);
  });

  it.each(['REVISE', 'REJECT'])('accepts a %s with a problem', (verdict) => {
    expect(Critique.safeParse(critique({ verdict, problems: [problem], counterarguments: [] })).success).toBe(true);
  });

  it.each(['NEEDS_EVIDENCE', 'NEEDS_EXPERIMENT'])('accepts %s without problems (it asks, it does not block)', (verdict) => {
    expect(Critique.safeParse(critique({ verdict, counterarguments: [] })).success).toBe(true);
  });

  it('reports a bad confidence alongside the honesty rule', () => {
    expect(issuePaths(critique({ verdict: 'REJECT', confidence: 1.2 })).sort()).toEqual(['confidence', 'problems']);
  });

  it.each([-0.1, 1.2])('rejects confidence %p', (confidence) => {
    expect(issuePaths(critique({ confidence }))).toEqual(['confidence']);
  });

  it.each([0, 1])('accepts confidence %p', (confidence) => {
    expect(Critique.parse(critique({ confidence })).confidence).toBe(confidence);
  });

  it('requires a proposal_id and a known verdict', () => {
    expect(issuePaths(critique({ proposal_id: '' }))).toEqual(['proposal_id']);
    expect(issuePaths(critique({ verdict: 'LGTM' }))).toContain('verdict');
  });

  it('validates each problem', () => {
    expect(issuePaths(critique({ verdict: 'REVISE', problems: [{ severity: 'huge', description: 'x' }] }))).toContain('problems.0.severity');
  });
});
