import { ApiHarness, startApi } from './api-test-harness';
import { Me } from '@roundtable/contracts';

jest.setTimeout(30_000);

const WRITER = 'me-writer-token-0123456789abcdef';
const READER = 'me-reader-token-0123456789abcdef';

/** GET /v1/me: what the workbench asks to decide whether to show act buttons. */
describe('GET /v1/me', () => {
  describe('with tokens', () => {
    let api: ApiHarness;
    beforeAll(async () => {
      api = await startApi({ API_TOKENS: [{ name: 'writer', token: WRITER, role: 'write', team: 'payments' }, { name: 'reader', token: READER, role: 'read' }] });
    });
    afterAll(async () => {
      await api?.close();
    });
    const me = (token?: string) => fetch(`${api.base}/v1/me`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

    it('names a write token and a read token with their roles', async () => {
      expect(Me.parse(await (await me(WRITER)).json())).toEqual({ name: 'writer', role: 'write', team: 'payments' });
      // A token given without a team is in the team default.
      expect(Me.parse(await (await me(READER)).json())).toEqual({ name: 'reader', role: 'read', team: 'default' });
    });

    it('is behind the door: no token or an unknown one is a 401', async () => {
      expect((await me()).status).toBe(401);
      expect((await me('not-a-token-we-know-0000')).status).toBe(401);
    });
  });

  describe('open (no API_TOKENS)', () => {
    let api: ApiHarness;
    beforeAll(async () => {
      api = await startApi({});
    });
    afterAll(async () => {
      await api?.close();
    });

    it('says open, with no name', async () => {
      expect(await (await fetch(`${api.base}/v1/me`)).json()).toEqual({ name: null, role: 'open', team: 'default' });
    });
  });
});
