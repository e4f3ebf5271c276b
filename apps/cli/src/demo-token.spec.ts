import { chooseDemoToken, describeDemoToken } from './demo-token';

const W = 'w'.repeat(24);
const R = 'r'.repeat(24);

describe('the token npm run demo / workbench sends (issue 22)', () => {
  it('sends ROUNDTABLE_TOKEN when set, naming it by its API_TOKENS name, never showing it', () => {
    const c = chooseDemoToken({ ROUNDTABLE_TOKEN: W, API_TOKENS: `dash:${R}:read,ci:${W}:write` });
    expect(c).toEqual({ token: W, from: 'ROUNDTABLE_TOKEN', name: 'ci' });
    expect(describeDemoToken(c)).toBe('sending the token in ROUNDTABLE_TOKEN (API_TOKENS names it "ci")');
    expect(describeDemoToken(chooseDemoToken({ ROUNDTABLE_TOKEN: W }))).not.toContain(W);
  });

  it('without ROUNDTABLE_TOKEN takes the first write (or approve) token of API_TOKENS', () => {
    const c = chooseDemoToken({ API_TOKENS: `dash:${R}:read, lead:a:b:${W}:approve` });
    expect(c).toEqual({ token: `a:b:${W}`, from: 'API_TOKENS', name: 'lead' });
    expect(describeDemoToken(c)).toBe('sending the API_TOKENS token "lead" (the first write token there; set ROUNDTABLE_TOKEN to send another)');
    expect(describeDemoToken(c)).not.toContain(W);
  });

  it('sends none to an open api, and says why it cannot submit with only read tokens', () => {
    expect(chooseDemoToken({})).toEqual({ token: null, problem: null });
    const readOnly = chooseDemoToken({ API_TOKENS: `dash:${R}:read` });
    expect(readOnly.token).toBeNull();
    expect(describeDemoToken(readOnly)).toMatch(/no write or approve token.*set ROUNDTABLE_TOKEN/);
  });
});
