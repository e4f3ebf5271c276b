import { randomUUID } from 'node:crypto';
import { stringify as toYaml } from 'yaml';
import { OutboxEntity, RunEntity } from '@roundtable/persistence';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(30_000);

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

interface Reply {
  id: string;
  error: string;
  message: string;
  [field: string]: unknown;
}

async function submit(body: unknown, key?: string, contentType = 'application/json'): Promise<{ status: number; json: Reply; location: string | null }> {
  const res = await fetch(`${api.base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Reply, location: res.headers.get('location') };
}
const runsWithKey = (key: string) => api.ds.getRepository(RunEntity).countBy({ idempotencyKey: key });

describe('POST /v1/runs with an Idempotency-Key', () => {
  it('answers the same key and body twice with the first answer, and makes one run', async () => {
    const key = randomUUID();
    const first = await submit(demoConfig(), key);
    expect(first.status).toBe(202);
    const again = await submit(demoConfig(), key);
    expect(again).toEqual(first);
    expect(await runsWithKey(key)).toBe(1);
    expect(await api.ds.getRepository(OutboxEntity).countBy({ runId: first.json.id })).toBe(1);
  });

  it('takes the same body with its keys in another order as the same body', async () => {
    const key = randomUUID();
    const cfg = demoConfig() as unknown as Record<string, unknown>;
    const first = await submit(cfg, key);
    const reordered = Object.fromEntries(Object.entries(cfg).reverse());
    const again = await submit(reordered, key);
    expect(again.status).toBe(202);
    expect(again.json.id).toBe(first.json.id);
  });

  it('refuses another body under a used key with a 422 naming the header and saying to use a new key', async () => {
    const key = randomUUID();
    const first = await submit(demoConfig(), key);
    const other = await submit({ ...demoConfig(), objective: 'something else' }, key);
    expect(other.status).toBe(422);
    expect(other.json.error).toBe('idempotency_key_reused');
    expect(other.json.message).toContain('Idempotency-Key');
    expect(other.json.message).toMatch(/new Idempotency-Key/);
    expect(other.json.run_id).toBe(first.json.id);
    // YAML text of the same config is another body too: the key names what was sent.
    expect((await submit(toYaml(demoConfig()), key, 'application/yaml')).status).toBe(422);
    expect(await runsWithKey(key)).toBe(1);
  });

  it('makes one run of concurrent submits under one key, and every one of them answers with it', async () => {
    const key = randomUUID();
    const replies = await Promise.all(Array.from({ length: 6 }, () => submit(demoConfig(), key)));
    expect(replies.map((r) => r.status)).toEqual(Array(6).fill(202));
    expect(new Set(replies.map((r) => r.json.id)).size).toBe(1);
    expect(await runsWithKey(key)).toBe(1);
  });

  it('makes a run per submit without the header, as before', async () => {
    const a = await submit(demoConfig());
    const b = await submit(demoConfig());
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(a.json.id).not.toBe(b.json.id);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'my key'],
    ['with a slash', 'a/b'],
  ])('refuses a key %s with a 400 naming the header, before any run is made', async (_what, key) => {
    const before = await api.ds.getRepository(RunEntity).count();
    const res = await submit(demoConfig(), key);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_idempotency_key');
    expect(res.json.message).toContain('Idempotency-Key');
    expect(await api.ds.getRepository(RunEntity).count()).toBe(before);
  });

  it('keeps a key per token: the same key from two tokens makes two runs', async () => {
    const tokened = await startApi({ API_TOKENS: [{ name: 'alice', role: 'write', token: 'a'.repeat(32) }, { name: 'bob', role: 'write', token: 'b'.repeat(32) }] });
    try {
      const key = randomUUID();
      const as = async (token: string) =>
        (await fetch(`${tokened.base}/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key },
          body: JSON.stringify(demoConfig()),
        }).then((r) => r.json())) as Reply;
      const [a, b] = [await as('a'.repeat(32)), await as('b'.repeat(32))];
      expect(a.id).toMatch(/^run_/);
      expect(b.id).toMatch(/^run_/);
      expect(a.id).not.toBe(b.id);
      expect((await as('a'.repeat(32))).id).toBe(a.id);
    } finally {
      await tokened.close();
    }
  });
});
