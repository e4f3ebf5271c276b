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
