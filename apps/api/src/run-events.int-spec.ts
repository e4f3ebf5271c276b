import type { DataSource } from 'typeorm';
import type { NewRunEvent, RunEventEnvelope } from '@roundtable/contracts';
import { appendRunEvents, runEventChannel, RunEventPublisher } from '@roundtable/events';
import { createRedisConnection, type RedisClient } from '@roundtable/queues';
import { openSse, SseConnection, SseFrame, sseEvents, waitFor } from '@roundtable/testing';
import { ApiHarness, demoConfig, startApi } from './api-test-harness';
import { RedisSubscribeError, RunEventHub } from './run-event-hub';

jest.setTimeout(30_000);

/** A test's view of one api: its harness, a publisher on its prefix, and helpers to write a run's log. */
interface Api {
  h: ApiHarness;
  redis: RedisClient;
  publisher: RunEventPublisher;
}

let api: Api;
/** A second api whose streams beat every 150 ms, for the idle behaviour. */
let beat: Api;

async function open(h: ApiHarness): Promise<Api> {
  const redis = createRedisConnection(h.env.REDIS_URL);
  return { h, redis, publisher: new RunEventPublisher(redis, h.env.QUEUE_PREFIX) };
}

beforeAll(async () => {
  api = await open(await startApi());
  beat = await open(await startApi({ SSE_HEARTBEAT_MS: 150 }));
});
afterAll(async () => {
  for (const a of [api, beat]) {
    a?.redis.disconnect();
    await a?.h.close();
  }
});

const note = (i: number): NewRunEvent => ({ type: 'open_question_raised', payload: { role: 'critic', question: `q${i}` } });
const notes = (from: number, n: number) => Array.from({ length: n }, (_, i) => note(from + i));
const completed: NewRunEvent = { type: 'run_completed', payload: { status: 'done', verdict: 'ACCEPT', confidence: 0.8 } };

async function newRun(a: Api = api): Promise<string> {
  const res = await fetch(`${a.h.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** Appends in one transaction, then publishes after the commit (or not, to play a lost message). */
async function append(runId: string, events: NewRunEvent[], opts: { publish?: boolean; a?: Api } = {}): Promise<RunEventEnvelope[]> {
  const a = opts.a ?? api;
  const written = await a.h.ds.transaction((em) => appendRunEvents(em, runId, events));
  if (opts.publish ?? true) await a.publisher.publish(written);
  return written;
}

const url = (runId: string, query = '', a: Api = api) => `${a.h.base}/v1/runs/${runId}/events${query}`;
const ids = (frames: SseFrame[]) => sseEvents(frames).map((e) => e.sequence);
const isId = (n: number) => (f: SseFrame) => f.id === String(n);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Reads a stream to its end; fails if the server does not close it. */
async function readToEnd(conn: SseConnection, timeoutMs = 10_000): Promise<SseFrame[]> {
  let timer!: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`stream still open after ${timeoutMs} ms; ids so far ${ids(conn.frames)}`)), timeoutMs);
  });
  await Promise.race([conn.ended, timeout]).finally(() => clearTimeout(timer));
  return conn.frames;
}

describe('GET /v1/runs/:id/events: replay', () => {
  let runId: string;

  beforeAll(async () => {
    runId = await newRun();
    await append(runId, notes(2, 4));
    await append(runId, [completed]);
  });

  it('replays the log as SSE frames whose id is the sequence and whose event is the type, then closes', async () => {
    const conn = await openSse(url(runId));
    expect(conn.status).toBe(200);
    expect(conn.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(conn.headers['x-accel-buffering']).toBe('no');
    expect(conn.headers['cache-control']).toBe('no-cache, no-transform');
    expect(conn.headers['content-encoding']).toBeUndefined();
    const frames = await readToEnd(conn);
    expect(frames[0]).toEqual({ retry: 3000 });
    const events = sseEvents(frames);
    expect(events.map((e) => [e.frameId, e.frameEvent, e.type])).toEqual([
      ['1', 'run_created', 'run_created'],
      ['2', 'open_question_raised', 'open_question_raised'],
      ['3', 'open_question_raised', 'open_question_raised'],
      ['4', 'open_question_raised', 'open_question_raised'],
      ['5', 'open_question_raised', 'open_question_raised'],
      ['6', 'run_completed', 'run_completed'],
    ]);
    expect(events[1]).toMatchObject({ run_id: runId, sequence: 2, payload: { role: 'critic', question: 'q2' } });
    expect(Date.parse((events[1] as unknown as { created_at: string }).created_at)).not.toBeNaN();
  });

  it('resumes after ?after=', async () => {
    expect(ids(await readToEnd(await openSse(url(runId, '?after=3'))))).toEqual([4, 5, 6]);
  });

  it('resumes after Last-Event-ID, which wins over ?after= (a reconnecting EventSource keeps its first URL)', async () => {
    expect(ids(await readToEnd(await openSse(url(runId), { headers: { 'last-event-id': '4' } })))).toEqual([5, 6]);
    expect(ids(await readToEnd(await openSse(url(runId, '?after=1'), { headers: { 'last-event-id': '4' } })))).toEqual([5, 6]);
  });

  it('answers 204 (EventSource: do not reconnect) to a client that has seen the terminal event', async () => {
    const conn = await openSse(url(runId), { headers: { 'last-event-id': '6' } });
    expect(conn.status).toBe(204);
  });

  it('replays a log longer than one page in order', async () => {
    const id = await newRun();
    await append(id, notes(2, 4500), { publish: false });
    await append(id, [completed], { publish: false });
    expect(ids(await readToEnd(await openSse(url(id))))).toEqual(range(1, 4502));
  });
});

describe('GET /v1/runs/:id/events: refusals before the stream starts', () => {
  it('404s an unknown run with the JSON error body', async () => {
    const conn = await openSse(url('run_nope'));
    expect(conn.status).toBe(404);
    expect(conn.headers['content-type']).toContain('application/json');
    expect(JSON.parse(conn.body)).toEqual({ error: 'run_not_found', message: 'no run run_nope' });
  });

  it.each([
    ['?after=abc', {}, 'after'],
    ['?after=-1', {}, 'after'],
    ['', { 'last-event-id': 'x7' }, 'Last-Event-ID'],
  ])('refuses a resume point that is not a sequence (%s %j), naming it', async (query, headers, name) => {
    const runId = await newRun();
    const conn = await openSse(url(runId, query), { headers });
    expect(conn.status).toBe(400);
    const body = JSON.parse(conn.body);
    expect(body.error).toBe('invalid_resume_point');
    expect(body.issues[0].path).toBe(name);
  });

  it('treats an empty Last-Event-ID as none', async () => {
    const runId = await newRun();
    const conn = await openSse(url(runId), { headers: { 'last-event-id': '' } });
    expect(conn.status).toBe(200);
    await conn.waitFor(isId(1));
    conn.close();
  });

  it('answers 503 when Redis cannot confirm the subscription, before streaming', async () => {
    const runId = await newRun();
    const hub = api.h.app.get(RunEventHub);
    const spy = jest.spyOn(hub, 'subscribe').mockRejectedValueOnce(new RedisSubscribeError('redis did not confirm the subscription within 5000 ms'));
    try {
      const conn = await openSse(url(runId));
      expect(conn.status).toBe(503);
      expect(JSON.parse(conn.body)).toEqual({
        error: 'event_stream_unavailable',
        message: `cannot follow run ${runId} live: redis did not confirm the subscription within 5000 ms`,
      });
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a resume point beyond the last event instead of silently skipping events', async () => {
    const runId = await newRun();
    const conn = await openSse(url(runId, '?after=9'));
    expect(conn.status).toBe(400);
    expect(JSON.parse(conn.body).message).toBe(`run ${runId} has no event 9; its last is 1`);
  });
});

describe('GET /v1/runs/:id/events: live', () => {
  it('delivers events appended after connect exactly once, in order, and closes after the terminal event', async () => {
    const runId = await newRun();
    const conn = await openSse(url(runId));
    await conn.waitFor(isId(1));
    await append(runId, notes(2, 3)); // 2..4 in one transaction
    await append(runId, [note(5)]);
    await append(runId, notes(6, 2));
    await conn.waitFor(isId(7));
    await append(runId, [completed]);
    const frames = await readToEnd(conn);
    expect(ids(frames)).toEqual(range(1, 8));
    expect(sseEvents(frames).at(-1)?.type).toBe('run_completed');
  });

  it('has no gap and no duplicate at the seam when events are committed and published between subscribe and replay', async () => {
    const runId = await newRun();
    await append(runId, [note(2)]);
    const hub = api.h.app.get(RunEventHub);
    const subscribe = hub.subscribe.bind(hub);
    const spy = jest.spyOn(hub, 'subscribe').mockImplementationOnce(async (id, listener) => {
      const remove = await subscribe(id, listener);
      // Subscribed, not yet replayed: these reach the buffer live AND the replay from Postgres.
      await append(runId, notes(3, 2));
      await append(runId, [note(5)], { publish: false });
      await append(runId, [note(6)]);
      return remove;
    });
    try {
      const conn = await openSse(url(runId));
      await conn.waitFor(isId(6));
      await append(runId, notes(7, 2));
      await append(runId, [completed]);
      expect(ids(await readToEnd(conn))).toEqual(range(1, 9));
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('delivers at once an event committed right after the replay read it: the subscription was already in force', async () => {
    const runId = await newRun();
    const appDs = api.h.app.get<DataSource>('DATA_SOURCE');
    const query = appDs.query.bind(appDs);
    let injected = false;
    const spy = jest.spyOn(appDs, 'query').mockImplementation((async (sql: string, params?: unknown[]) => {
      const rows = await query(sql, params);
      if (!injected && /FROM run_events/.test(sql) && params?.[0] === runId) {
        injected = true;
        // The terminal event lands after the replay's read and before the stream goes live.
        await append(runId, [completed]);
      }
      return rows;
    }) as typeof appDs.query);
    try {
      // Only the live path can deliver it this soon: the heartbeat's catch-up is 15 s away.
      expect(ids(await readToEnd(await openSse(url(runId)), 3000))).toEqual([1, 2]);
      expect(injected).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it('gives every client every sequence once, in order, while a writer appends without pause and clients keep joining', async () => {
    const runId = await newRun();
    const total = 150;
    const clients: Promise<SseFrame[]>[] = [];
    const writer = (async () => {
      for (let seq = 2; seq < total; seq++) {
        await append(runId, [note(seq)]);
        // Clients join at every phase of the writer: before, during and right after a commit.
        if (seq % 15 === 0) clients.push(openSse(url(runId)).then((c) => readToEnd(c, 20_000)));
      }
      await append(runId, [completed]);
    })();
    clients.push(openSse(url(runId)).then((c) => readToEnd(c, 20_000)));
    await writer;
    const results = await Promise.all(clients);
    expect(results.length).toBeGreaterThan(5);
    for (const frames of results) expect(ids(frames)).toEqual(range(1, total));
  });

  it('fills a gap from Postgres before sending a live event that skips sequences (its predecessor was never published)', async () => {
    const runId = await newRun();
    const conn = await openSse(url(runId));
    await conn.waitFor(isId(1));
    const [two, three] = await append(runId, notes(2, 2), { publish: false });
    await api.publisher.publish([three]);
    // The main api's heartbeat is 15 s away, so only the gap fill can deliver 2 this soon.
    await conn.waitFor(isId(3), 3000);
    expect(ids(conn.frames)).toEqual([1, 2, 3]);
    expect(two.sequence).toBe(2);
    await append(runId, [completed]);
    expect(ids(await readToEnd(conn))).toEqual([1, 2, 3, 4]);
  });

  it('sends once and in order when messages overtake each other', async () => {
    const runId = await newRun();
    const conn = await openSse(url(runId));
    await conn.waitFor(isId(1));
    const a = await append(runId, [note(2)], { publish: false });
    const b = await append(runId, [note(3)], { publish: false });
    await api.publisher.publish([...b, ...a, ...b]);
    await conn.waitFor(isId(3), 3000);
    await api.publisher.publish(a);
    await append(runId, [completed]);
    expect(ids(await readToEnd(conn))).toEqual([1, 2, 3, 4]);
  });

  it('holds one Redis subscription per run for all of its clients in this process, and drops it when they leave', async () => {
    const runId = await newRun();
    const hub = api.h.app.get(RunEventHub);
    const channel = runEventChannel(api.h.env.QUEUE_PREFIX, runId);
    const numsub = async () => Number(((await api.redis.pubsub('NUMSUB', channel)) as [string, number])[1]);
    const conns = await Promise.all([1, 2, 3].map(() => openSse(url(runId))));
    await Promise.all(conns.map((c) => c.waitFor(isId(1))));
    expect(hub.listenerCount(runId)).toBe(3);
    expect(await numsub()).toBe(1);

    await append(runId, [note(2)]);
    await Promise.all(conns.map((c) => c.waitFor(isId(2))));

    for (const c of conns) c.close();
    await waitFor('the clients to be cleaned up', async () => (hub.listenerCount(runId) === 0 && (await numsub()) === 0 ? true : undefined), 5000, 20);
  });
});

describe('GET /v1/runs/:id/events: idle', () => {
  it('sends a heartbeat comment on idle (SSE_HEARTBEAT_MS)', async () => {
    const runId = await newRun(beat);
    const conn = await openSse(url(runId, '', beat));
    await conn.waitFor(isId(1));
    const started = Date.now();
    const beats = () => conn.frames.filter((f) => f.comment === 'heartbeat').length;
    await conn.waitFor(() => beats() >= 3, 3000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * 150);
    expect(conn.frames.filter((f) => f.comment !== undefined).every((f) => f.comment === 'heartbeat')).toBe(true);
    conn.close();
  });

  it('delivers an event whose message was lost, at the next heartbeat, from the log', async () => {
    const runId = await newRun(beat);
    const conn = await openSse(url(runId, '', beat));
    await conn.waitFor(isId(1));
    await append(runId, [note(2), completed], { publish: false, a: beat });
    expect(ids(await readToEnd(conn, 3000))).toEqual([1, 2, 3]);
  });
});

describe('GET /v1/runs/:id/events: a resumed run', () => {
  it('ends at each terminal event; the next stream picks up the resumed part and ends at the next', async () => {
    const runId = await newRun();
    await append(runId, [note(2), { type: 'run_completed', payload: { status: 'halted' } }]);
    await append(runId, [note(4), completed]);
    expect(ids(await readToEnd(await openSse(url(runId))))).toEqual([1, 2, 3]);
    expect(ids(await readToEnd(await openSse(url(runId), { headers: { 'last-event-id': '3' } })))).toEqual([4, 5]);
    expect((await openSse(url(runId), { headers: { 'last-event-id': '5' } })).status).toBe(204);
  });
});

describe('GET /v1/runs/:id/events?through=end', () => {
  it('follows a resumed run past each terminal event to the end of its log, then closes', async () => {
    const runId = await newRun();
    await append(runId, [note(2), { type: 'run_completed', payload: { status: 'halted' } }]);
    await append(runId, [note(4), completed]);
    const frames = await readToEnd(await openSse(url(runId, '?through=end')));
    expect(ids(frames)).toEqual([1, 2, 3, 4, 5]);
    expect(frames.filter((f) => f.id !== undefined).map((f) => f.id)).toEqual(['1', '2', '3', '4', '5']);
  });

  it('stays open after a live run_completed while more is appended (an appeal), and closes at the end of the log', async () => {
    const runId = await newRun();
    const conn = await openSse(url(runId, '?through=end'));
    await conn.waitFor(isId(1));
    // The terminal event and what follows it in one transaction: the stream must not end in between.
    await append(runId, [completed, note(3)]);
    await conn.waitFor(isId(3));
    await append(runId, [{ type: 'run_completed', payload: { status: 'done', verdict: 'ACCEPT', confidence: 0.9 } }]);
    expect(ids(await readToEnd(conn))).toEqual([1, 2, 3, 4]);
  });

  describe("a refused appeal's trailing warnings (issue 22)", () => {
    const refused: NewRunEvent = { type: 'panel_warning', payload: { kind: 'appeal_refused', detail: 'the appeal does not fit the budget', judges: ['vc'] } };
    const warned: NewRunEvent = { type: 'budget_warning', payload: { cap: 'max_calls', used: 9, limit: 10 } };
    /** A done run whose log ends with run_completed and then the given warnings. */
    async function refusedRun(tail: NewRunEvent[]): Promise<string> {
      const runId = await newRun();
      await api.h.ds.query(`UPDATE runs SET status = 'done' WHERE id = $1`, [runId]);
      await append(runId, [completed, ...tail]);
      return runId;
    }

    it('closes ?through=end, a plain stream after run_completed, and answers 204 at the end: panel_warning then budget_warning', async () => {
      const runId = await refusedRun([refused, warned]);
      expect(ids(await readToEnd(await openSse(url(runId, '?through=end'))))).toEqual([1, 2, 3, 4]);
      expect(ids(await readToEnd(await openSse(url(runId, '?after=2'))))).toEqual([3, 4]);
      expect((await fetch(url(runId, '?after=4&through=end'))).status).toBe(204);
      expect((await fetch(url(runId, '?after=4'))).status).toBe(204);
    });

    it('closes whatever order the warnings come in (budget_warning, then panel_warning)', async () => {
      const runId = await refusedRun([warned, refused]);
      expect(ids(await readToEnd(await openSse(url(runId, '?through=end'))))).toEqual([1, 2, 3, 4]);
      expect((await fetch(url(runId, '?after=4'))).status).toBe(204);
    });
  });

  it('refuses any other value of through, naming the field', async () => {
    const runId = await newRun();
    const res = await fetch(url(runId, '?through=forever'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_query', issues: [{ path: 'through' }] });
  });
});

describe('shutdown', () => {
  it('ends open streams so the api can close (their clients reconnect elsewhere with Last-Event-ID)', async () => {
    const own = await open(await startApi());
    let closed = false;
    try {
      const runId = await newRun(own);
      const conn = await openSse(url(runId, '', own));
      await conn.waitFor(isId(1));
      const started = Date.now();
      // The harness closes the Nest app first: an open stream left to itself would hold the HTTP server open.
      await own.h.close();
      closed = true;
      await conn.ended;
      expect(Date.now() - started).toBeLessThan(5000);
      expect(ids(conn.frames)).toEqual([1]);
    } finally {
      own.redis.disconnect();
      if (!closed) await own.h.close();
    }
  });
});
