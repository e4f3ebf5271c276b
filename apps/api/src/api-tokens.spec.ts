import { ApiTokensEnv, TokenBook } from './api-tokens';

const messages = (raw: string) => {
  const r = ApiTokensEnv.safeParse(raw);
  if (r.success) throw new Error('expected API_TOKENS to be refused');
  return r.error.issues.map((i) => i.message);
};

describe('API_TOKENS', () => {
  it('parses name:token:role entries in the team default; the token may hold colons', () => {
    expect(ApiTokensEnv.parse(' ci:aaaaaaaaaaaaaaaa:write , dash:bb:bb:bbbbbbbbbbbbbb:read')).toEqual([
      { name: 'ci', token: 'aaaaaaaaaaaaaaaa', role: 'write', team: 'default' },
      { name: 'dash', token: 'bb:bb:bbbbbbbbbbbbbb', role: 'read', team: 'default' },
    ]);
  });

  it('parses name:token:role:team (issue 26); a token with colons keeps them', () => {
    expect(ApiTokensEnv.parse('ci:aaaaaaaaaaaaaaaa:write:payments,lead:cc:cccccccccccccccc:approve:search,dash:bb:read:bbbbbbbbbbbbbb:read')).toEqual([
      { name: 'ci', token: 'aaaaaaaaaaaaaaaa', role: 'write', team: 'payments' },
      { name: 'lead', token: 'cc:cccccccccccccccc', role: 'approve', team: 'search' },
      // The last field is a role: the old form, whatever the token holds.
      { name: 'dash', token: 'bb:read:bbbbbbbbbbbbbb', role: 'read', team: 'default' },
    ]);
  });

  it('names a bad team or a bad role before a team, never echoing the token', () => {
    const secret = 'dddddddddddddddddddd';
    const all = messages(`ci:${secret}:write:pay ments,b:${secret}x:boss:search`);
    expect(all).toEqual([
      'API_TOKENS entry 1 (ci): the team may hold letters, digits, _ . and - (1 to 64 of them)',
      'API_TOKENS entry 2 (b): the role must be one of read, write, approve, ops, admin, not "boss"',
    ]);
    expect(all.join('\n')).not.toContain(secret);
  });

  it('unset or empty means no tokens (the API runs open)', () => {
    expect(ApiTokensEnv.parse(undefined)).toEqual([]);
    expect(ApiTokensEnv.parse('')).toEqual([]);
  });

  it('names each bad entry and the fix, never echoing a token', () => {
    const secret = 'cccccccccccccccccccc';
    const all = messages(`ci:${secret}:boss,short:abc:read,:${secret}x:write,nocolons,ci2:${secret}:read`);
    expect(all).toEqual([
      'API_TOKENS entry 1 (ci): the role must be one of read, write, approve, ops, admin, not "boss"',
      'API_TOKENS entry 2 (short): the token must be at least 16 characters without spaces (e.g. openssl rand -hex 24)',
      expect.stringMatching(/^API_TOKENS entry 3 is not name:token:role\. API_TOKENS is a comma list of name:token:role/),
      expect.stringMatching(/^API_TOKENS entry 4 is not name:token:role\. /),
    ]);
    expect(all.join('\n')).not.toContain(secret);
  });

  it('refuses the same name or the same token twice', () => {
    expect(messages('a:aaaaaaaaaaaaaaaa:write,a:bbbbbbbbbbbbbbbb:read')).toEqual(['API_TOKENS entry 2 (a): the name a is given twice']);
    expect(messages('a:aaaaaaaaaaaaaaaa:write,b:aaaaaaaaaaaaaaaa:read')).toEqual(['API_TOKENS entry 2 (b): the same token is given to a already']);
  });
});

describe('TokenBook', () => {
  it('finds the holder of a presented token, and nobody for another', () => {
    const book = new TokenBook([
      { name: 'ci', token: 'aaaaaaaaaaaaaaaa', role: 'write' },
      { name: 'dash', token: 'bbbbbbbbbbbbbbbb', role: 'read' },
    ]);
    expect(book.open).toBe(false);
    expect(book.find('bbbbbbbbbbbbbbbb')).toMatchObject({ name: 'dash', role: 'read' });
    expect(book.find('aaaaaaaaaaaaaaa')).toBeNull();
    expect(book.find('')).toBeNull();
    expect(new TokenBook([]).open).toBe(true);
  });
});
