import { appealBody, resumeBody } from './act-requests';

describe('resumeBody', () => {
  it('sends only the caps given, as numbers', () => {
    expect(resumeBody({ caps: { max_calls: ' 40 ', max_tokens: '' } })).toEqual({ ok: true, body: { caps: { max_calls: 40 } } });
  });

  it('sends an empty body when nothing is raised', () => {
    expect(resumeBody({ caps: {} })).toEqual({ ok: true, body: {} });
  });

  it('names a cap that is not a whole number above 0', () => {
    expect(resumeBody({ caps: { max_calls: '2.5', max_cost_usd: '-1', max_fix_rounds: 'x' } })).toEqual({
      ok: false,
      issues: {
        'caps.max_calls': 'caps.max_calls must be a whole number',
        'caps.max_cost_usd': 'caps.max_cost_usd must be above 0',
        'caps.max_fix_rounds': 'caps.max_fix_rounds must be a number',
      },
    });
  });
});

describe('appealBody', () => {
  it('takes evidence one item a line and the judges chosen', () => {
    expect(appealBody({ evidence: '62 % use no suite\n\n  a second fact  \n', judges: ['vc'], caps: {} })).toEqual({
      ok: true,
      body: { evidence: ['62 % use no suite', 'a second fact'], judges: ['vc'] },
    });
  });

  it('needs evidence and a judge', () => {
    const r = appealBody({ evidence: '  \n', judges: [], caps: {} });
    expect(r.ok).toBe(false);
    expect(!r.ok && Object.keys(r.issues).sort()).toEqual(['evidence', 'judges']);
  });
});
