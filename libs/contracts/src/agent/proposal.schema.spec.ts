import { CriticismResponse, Proposal } from './proposal.schema';

function proposal(over: Record<string, unknown> = {}) {
  return {
    proposal_id: 'P1',
    claim: 'max_drawdown returns the largest peak-to-trough fraction',
    approach: 'single pass tracking the running peak',
    assumptions: ['equity values are positive'],
    evidence: [],
    risks: ['a zero peak'],
    tests_required: ['empty series returns 0.0'],
    confidence: 0.6,
    ...over,
  };
}

describe('Proposal', () => {
  it('parses a first proposal; responses_to_criticism defaults to [] and evidence may be empty', () => {
    const p = Proposal.parse(proposal());
    expect(p.responses_to_criticism).toEqual([]);
    expect(p.evidence).toEqual([]);
    expect(p.revision_of).toBeUndefined();
  });

  it('parses a revision that answers the critique', () => {
    const p = Proposal.parse(
      proposal({
        proposal_id: 'P1r1',
        revision_of: 'P1',
        responses_to_criticism: [{ problem: 'zero peak', action: 'fixed', reason: 'guarded in dd.py' }],
      }),
    );
    expect(p.revision_of).toBe('P1');
    expect(p.responses_to_criticism[0].action).toBe('fixed');
  });

  it('requires at least one tests_required entry, saying so', () => {
    const r = Proposal.safeParse(proposal({ tests_required: [] }));
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['tests_required']);
    expect(r.error?.issues[0].message).toMatch(/at least one concrete, checkable test/);
  });

  it('rejects a blank test entry', () => {
    const r = Proposal.safeParse(proposal({ tests_required: [''] }));
    expect(r.error?.issues[0].path).toEqual(['tests_required', 0]);
  });

  it.each(['proposal_id', 'claim', 'approach'])('requires a non-empty %s', (field) => {
    const r = Proposal.safeParse(proposal({ [field]: '' }));
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual([field]);
  });

  it.each([-0.1, 1.2])('rejects confidence %p', (confidence) => {
    expect(Proposal.safeParse(proposal({ confidence })).success).toBe(false);
  });

  it.each([0, 1])('accepts confidence %p', (confidence) => {
    expect(Proposal.parse(proposal({ confidence })).confidence).toBe(confidence);
  });
});

describe('CriticismResponse', () => {
  it.each(['fixed', 'rejected', 'deferred'])('accepts action %s', (action) => {
    expect(CriticismResponse.parse({ problem: 'p', action, reason: 'r' }).action).toBe(action);
  });

  it('rejects an unknown action and an empty reason', () => {
    expect(CriticismResponse.safeParse({ problem: 'p', action: 'ignored', reason: 'r' }).success).toBe(false);
    expect(CriticismResponse.safeParse({ problem: 'p', action: 'rejected', reason: '' }).success).toBe(false);
  });
});
