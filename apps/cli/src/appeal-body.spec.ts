import { appealBody } from './appeal-body';
import { UsageError } from './cli-args';

describe('appealBody', () => {
  it('collects every --evidence and --judge (repeated or comma-separated), and caps when given', () => {
    expect(appealBody({ evidence: ['62 % use no suite', ' a second '], judge: ['vc,Competitor', 'pm'] })).toEqual({
      evidence: ['62 % use no suite', 'a second'],
      judges: ['vc', 'competitor', 'pm'],
    });
    expect(appealBody({ evidence: 'one', judge: 'vc', 'max-calls': '40' })).toEqual({ evidence: ['one'], judges: ['vc'], caps: { max_calls: 40 } });
  });

  it('takes ledger entries by id (repeated or comma-separated), beside or instead of --evidence (issue 23)', () => {
    expect(appealBody({ 'evidence-id': ['E1,e2', 'E3'], judge: 'engineer' })).toEqual({ evidence_ids: ['E1', 'E2', 'E3'], judges: ['engineer'] });
    expect(appealBody({ evidence: 'a letter', 'evidence-id': 'E1', judge: 'pm' })).toEqual({ evidence: ['a letter'], evidence_ids: ['E1'], judges: ['pm'] });
  });

  it('names the missing option', () => {
    expect(() => appealBody({ judge: ['vc'] })).toThrow(new UsageError('appeal needs --evidence TEXT or --evidence-id E (at least one item; repeat it for more)'));
    expect(() => appealBody({ evidence: ['x'] })).toThrow(/appeal needs --judge J/);
  });
});
