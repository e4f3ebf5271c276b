import { Disagreement, Synthesis } from './synthesis.schema';

const disagreement = {
  topic: 'zero or negative peak handling',
  positions: [
    { agent_role: 'critic', position: 'C1: a major bug' },
    { agent_role: 'reviser', position: 'deferred: equity is positive by assumption' },
  ],
  resolved: false,
};

function synthesis(over: Record<string, unknown> = {}) {
  return {
    what_was_built: 'dd.py with max_drawdown',
    test_summary: 'T2: 5 passed',
    disagreements: [disagreement],
    remaining_risks: ['non-positive equity'],
    recommended_next_experiment: null,
    overall_verdict: 'ACCEPT',
    confidence: 0.7,
    ...over,
  };
}

describe('Synthesis', () => {
  it('accepts REJECT as an overall verdict: a rejection is a valid outcome', () => {
    expect(Synthesis.parse(synthesis({ overall_verdict: 'REJECT' })).overall_verdict).toBe('REJECT');
  });

  it('keeps unresolved disagreements as given', () => {
    expect(Synthesis.parse(synthesis()).disagreements).toEqual([disagreement]);
  });

  it('takes recommended_next_experiment as a string, null or absent', () => {
    expect(Synthesis.parse(synthesis({ recommended_next_experiment: 'property-test with hypothesis' })).recommended_next_experiment).toBe(
      'property-test with hypothesis',
    );
    const { recommended_next_experiment: _omit, ...without } = synthesis();
    expect(Synthesis.safeParse(without).success).toBe(true);
  });

  it('rejects an unknown verdict and an out-of-range confidence', () => {
    expect(Synthesis.safeParse(synthesis({ overall_verdict: 'MAYBE' })).success).toBe(false);
    expect(Synthesis.safeParse(synthesis({ confidence: 1.2 })).success).toBe(false);
  });
});

describe('Disagreement', () => {
  it('rejects a position without a role', () => {
    const r = Disagreement.safeParse({ ...disagreement, positions: [{ agent_role: '', position: 'x' }] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['positions', 0, 'agent_role']);
  });

  it('records a resolution when resolved', () => {
    expect(Disagreement.parse({ ...disagreement, resolved: true, resolution: 'guard added' }).resolution).toBe('guard added');
  });
});
