import type { ApiError } from './api-error';
import { parseAppealRequest } from './run-appeal.service';
import { unstorableTextIssues } from './storable-text.check';

describe('unstorableTextIssues', () => {
  it('passes ordinary text, emoji (a surrogate pair) and non-strings', () => {
    expect(unstorableTextIssues({ a: 'plain', b: ['😀 ok', 1, null, true], c: { d: 'é' } })).toEqual([]);
  });

  it('names each NUL and lone surrogate by its path, keys included', () => {
    const issues = unstorableTextIssues({ objective: 'a\u0000b', requirements: ['ok', 'x\ud800'], tail: '\udc00', nested: { 'k\u0000': 'v' } });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'objective', message: expect.stringContaining('NUL character') },
        { path: 'requirements.1', message: expect.stringContaining('lone UTF-16 surrogate') },
        { path: 'tail', message: expect.stringContaining('lone UTF-16 surrogate') },
        { path: 'nested."k\\u0000"', message: expect.stringContaining('the key holds a NUL') },
      ]),
    );
    expect(issues).toHaveLength(4);
  });
});

describe('parseAppealRequest refuses evidence Postgres cannot hold', () => {
  it('answers a NUL in the evidence with a 400 naming the item', () => {
    const err = (() => {
      try {
        parseAppealRequest({ evidence: ['fine', 'bad\u0000'], judges: ['vc'] });
      } catch (e) {
        return e as ApiError;
      }
      throw new Error('expected the appeal to be refused');
    })();
    expect(err.getStatus()).toBe(400);
    expect(err.getResponse()).toMatchObject({ error: 'invalid_appeal_request', issues: [{ path: 'evidence.1', message: expect.stringContaining('NUL character') }] });
    expect(parseAppealRequest({ evidence: ['fine'], judges: ['vc'] }).evidence).toEqual(['fine']);
  });
});
