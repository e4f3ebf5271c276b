import { ApiHarness, demoConfig, startApi } from './api-test-harness';

jest.setTimeout(60_000);

/**
 * GET /v1/runs's search (q), date range (from, to) and cursor pagination, over runs posted through
 * the api and then dated by hand (runs.created_at), to the microsecond as Postgres keeps it.
 */

let api: ApiHarness;

interface Listed {
  id: string;
  project: string;
  created_at: string;
}

async function submit(over: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${api.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...demoConfig(), ...over }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

const dateRun = (id: string, at: string) => api.ds.query(`UPDATE runs SET created_at = $2::timestamptz WHERE id = $1`, [id, at]);

async function list(query: string): Promise<{ status: number; ids: string[]; body: unknown; cursor: string | null; link: string | null }> {
  const res = await fetch(`${api.base}/v1/runs?${query}`);
  const body = (await res.json()) as unknown;
  return {
    status: res.status,
    body,
    ids: Array.isArray(body) ? (body as Listed[]).map((r) => r.id) : [],
    cursor: res.headers.get('x-next-cursor'),
    link: res.headers.get('link'),
  };
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApi();
  ids.zebra = await submit({ project: 'search-alpha', objective: 'Compute the Zebra drawdown of an equity curve' });
  ids.percent = await submit({ project: 'search-beta', objective: 'Ship 100% of the a_b module' });
  ids.decoy = await submit({ project: 'search-gamma', objective: 'Ship 1000 widgets from the axb module' });
  ids.jan10 = await submit({ project: 'dated' });
  ids.jan15 = await submit({ project: 'dated' });
  ids.jan20 = await submit({ project: 'dated' });
  await dateRun(ids.jan10, '2025-01-10T08:00:00Z');
  await dateRun(ids.jan15, '2025-01-15T23:30:00.250001Z');
  await dateRun(ids.jan20, '2025-01-20T00:00:00Z');
});
afterAll(async () => {
  await api?.close();
});

describe('GET /v1/runs?q=', () => {
  it('finds a run by a word of its objective, case-insensitive, and by its project name and id', async () => {
    expect((await list('q=zebra')).ids).toEqual([ids.zebra]);
    expect((await list('q=ZEBRA%20DRAWDOWN')).ids).toEqual([ids.zebra]);
    expect((await list('q=search-beta')).ids).toEqual([ids.percent]);
    expect((await list(`q=${ids.decoy.slice(4).toUpperCase()}`)).ids).toEqual([ids.decoy]);
    expect((await list('q=no-such-word-anywhere')).ids).toEqual([]);
  });

  it('matches % and _ as themselves, not as LIKE wildcards', async () => {
    expect((await list(`q=${encodeURIComponent('100%')}`)).ids).toEqual([ids.percent]);
    expect((await list('q=a_b')).ids).toEqual([ids.percent]);
    expect((await list(`q=${encodeURIComponent('%')}`)).ids).toEqual([ids.percent]);
    // Every run id has an underscore (run_…): `_` alone finds them all, as text, not as "any one character".
    expect((await list(`q=${encodeURIComponent('n_')}&limit=500`)).ids).toHaveLength((await list('limit=500')).ids.length);
    expect((await list(`q=${encodeURIComponent('u_')}`)).ids).toEqual([]);
    expect((await list(`q=${encodeURIComponent('\\')}`)).ids).toEqual([]);
  });

  it('keeps the other filters: q with status and workflow', async () => {
    expect((await list('q=zebra&status=queued&workflow=build')).ids).toEqual([ids.zebra]);
    expect((await list('q=zebra&workflow=panel')).ids).toEqual([]);
  });
});

describe('GET /v1/runs?from=&to=', () => {
  it('takes a date as a whole UTC day at both ends, and a date-time as the instant', async () => {
    expect((await list('from=2025-01-01&to=2025-01-31')).ids).toEqual([ids.jan20, ids.jan15, ids.jan10]);
    expect((await list('from=2025-01-11&to=2025-01-15')).ids).toEqual([ids.jan15]);
    expect((await list('from=2025-01-15&to=2025-01-15')).ids).toEqual([ids.jan15]);
    expect((await list('from=2025-01-10&to=2025-01-15T12:00:00Z')).ids).toEqual([ids.jan10]);
    expect((await list(`from=${encodeURIComponent('2025-01-16T01:30:00+02:00')}&to=2025-01-20`)).ids).toEqual([ids.jan20, ids.jan15]);
    expect((await list('to=2025-01-19')).ids).toEqual([ids.jan15, ids.jan10]);
    expect((await list('from=2025-01-20&to=2025-01-20T00:00:00Z')).ids).toEqual([ids.jan20]);
  });

  it.each([
    ['from=2025-13-01', 'from'],
    ['from=yesterday', 'from'],
    ['to=2025-02-30', 'to'],
    ['to=2025-01-15T12:00:00', 'to'],
    ['from=2025-01-01&from=2025-01-02', 'from'],
  ])('answers 400 naming the parameter and the form for %s', async (query, name) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    const body = res.body as { error: string; message: string; issues: { path: string; message: string }[] };
    expect(body.error).toBe('invalid_query');
    expect(body.issues.map((i) => i.path)).toEqual([name]);
    expect(body.message).toContain(`${name} must be an ISO date (2026-01-31) or date-time`);
  });

  it('answers 400 when from is later than to', async () => {
    const res = await list('from=2025-01-20&to=2025-01-19');
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toContain('from must not be later than to');
  });
});

describe('GET /v1/runs?cursor=', () => {
  it('pages through three pages by X-Next-Cursor, a run posted between pages neither repeated nor making one skipped', async () => {
    const paged: string[] = [];
    for (let i = 0; i < 7; i++) paged.push(await submit({ project: 'pager', objective: `page me ${i}` }));
    // Three share one instant (to the microsecond): the id breaks the tie.
    for (const id of paged.slice(2, 5)) await dateRun(id, '2025-06-01T12:00:00.123456Z');
    await dateRun(paged[0], '2025-06-01T12:00:00.123455Z');
    await dateRun(paged[1], '2025-06-01T12:00:00.123457Z');
    await dateRun(paged[5], '2025-05-01T00:00:00Z');
    await dateRun(paged[6], '2025-07-01T00:00:00Z');
    const all = await list('q=pager&limit=500');
    expect(all.cursor).toBeNull();
    expect(all.link).toBeNull();
    expect([...all.ids].sort()).toEqual([...paged].sort());

    const first = await list('q=pager&limit=3');
    expect(first.ids).toEqual(all.ids.slice(0, 3));
    expect(first.cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.link).toBe(`</v1/runs?q=pager&limit=3&cursor=${first.cursor}>; rel="next"`);

    // A new run between the pages: newer than every one listed, so it belongs before the cursor.
    const late = await submit({ project: 'pager', objective: 'posted while paging' });
    const second = await list(`q=pager&limit=3&cursor=${first.cursor}`);
    expect(second.ids).toEqual(all.ids.slice(3, 6));
    expect(second.cursor).not.toBeNull();
    const third = await list(`q=pager&limit=3&cursor=${second.cursor}`);
    expect(third.ids).toEqual(all.ids.slice(6));
    expect(third.cursor).toBeNull();
    expect(third.link).toBeNull();

    const seen = [...first.ids, ...second.ids, ...third.ids];
    expect(new Set(seen).size).toBe(7);
    expect(seen).toEqual(all.ids);
    expect(seen).not.toContain(late);
    expect((await list('q=pager&limit=1')).ids).toEqual([late]);
  });

  it('answers 400 for a cursor it did not give', async () => {
    for (const bad of ['nope!', Buffer.from('2025-01-01|run_x').toString('base64url'), 'a'.repeat(500)]) {
      const res = await list(`cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect((res.body as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['cursor']);
    }
  });
});
