import type { ServerResponse } from 'node:http';
import { closedPort, FakeApi, RecordedRequest, startFakeApi } from './fake-api.fixture';
import { readEventStream, SseConnectError, SseFrameParser, SseGaveUpError, SseHttpError, SseMessage } from './sse-client';

describe('SseFrameParser', () => {
  const STREAM =
    'retry: 1500\n\n' +
    ': heartbeat\n\n' +
    'id: 1\nevent: stage_changed\ndata: {"a":1}\n\n' +
    'id: 2\r\nevent: agent_call_completed\r\ndata: line one\r\ndata: line two\r\n\r\n' +
    'id: 3\rdata:no-space\r\r' +
    'event: no_data\n\n' +
    'data: after-id\n\n' +
    'id\ndata: cleared id\n\n';
  const EXPECTED: SseMessage[] = [
    { id: '1', event: 'stage_changed', data: '{"a":1}' },
    { id: '2', event: 'agent_call_completed', data: 'line one\nline two' },
    { id: '3', event: 'message', data: 'no-space' },
    // The last event id stays in force until another `id:` changes it.
    { id: '3', event: 'message', data: 'after-id' },
    { id: '', event: 'message', data: 'cleared id' },
  ];

  it('parses frames, multi-line data, CRLF and CR line ends, comments and retry', () => {
    const p = new SseFrameParser();
    expect(p.push(STREAM)).toEqual(EXPECTED);
    expect(p.retryMs).toBe(1500);
    expect(p.comments).toBe(1);
  });

  it('gives the same frames however the bytes are split, even between a \\r and its \\n', () => {
    for (const size of [1, 2, 3, 7]) {
      const p = new SseFrameParser();
      const out: SseMessage[] = [];
      for (let i = 0; i < STREAM.length; i += size) out.push(...p.push(STREAM.slice(i, i + size)));
      expect(out).toEqual(EXPECTED);
    }
  });

  it("holds an unfinished frame until its blank line; resetFrame drops it, its id included", () => {
    const p = new SseFrameParser('7');
    expect(p.push('id: 8\nevent: x\ndata: {"par')).toEqual([]);
    // The id of a frame counts only once the frame is complete.
    expect(p.lastEventId).toBe('7');
    p.resetFrame();
    expect(p.push('data: whole\n\n')).toEqual([{ id: '7', event: 'message', data: 'whole' }]);
    expect(p.push('id: 9\n\n')).toEqual([]);
    expect(p.lastEventId).toBe('9');
  });
});

const frame = (id: number, type = 'tick') => `id: ${id}\nevent: ${type}\ndata: {"sequence":${id},"type":"${type}"}\n\n`;
const sseHead = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const isEnd = (m: SseMessage) => m.event === 'end';

describe('readEventStream against a local server', () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('reconnects with Last-Event-ID after a drop mid-frame and delivers every id exactly once, in order', async () => {
    let connection = 0;
    api = await startFakeApi((req: RecordedRequest, res) => {
      connection++;
      sseHead(res);
      if (connection === 1) {
        // Three whole frames and half of the fourth, then the connection dies.
        res.write(frame(1) + frame(2) + frame(3) + 'id: 4\nevent: tick\ndata: {"seq');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      // A server that replays one frame too many at the seam: the client must drop it.
      res.write(frame(3) + frame(4) + ': heartbeat\n\n' + frame(5) + frame(6, 'end'));
    });
    const seen: string[] = [];
    const reconnects: { attempt: number; lastEventId: string | null }[] = [];
    const result = await readEventStream({
      url: `${api.url}/v1/runs/r/events`,
      headers: { authorization: 'Bearer t0k' },
      retryMs: 10,
      onMessage: (m) => void seen.push(m.id!),
      isTerminal: isEnd,
      onReconnect: ({ attempt, lastEventId }) => reconnects.push({ attempt, lastEventId }),
    });
    expect(seen).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(result).toEqual({ end: 'terminal', lastEventId: '6', reconnects: 1 });
    expect(reconnects).toEqual([{ attempt: 1, lastEventId: '3' }]);
    expect(api.requests).toHaveLength(2);
    expect(api.requests[0].headers['last-event-id']).toBeUndefined();
    expect(api.requests[1].headers['last-event-id']).toBe('3');
    expect(api.requests.map((r) => r.headers.authorization)).toEqual(['Bearer t0k', 'Bearer t0k']);
    expect(api.requests[0].headers.accept).toBe('text/event-stream');
  });

  it('starts after a given id, and stops at the terminal frame even if the server keeps the stream open', async () => {
    api = await startFakeApi((_req, res) => {
      sseHead(res);
      res.write(frame(5) + frame(6, 'end') + frame(7)); // never ended by the server
    });
    const seen: string[] = [];
    const result = await readEventStream({ url: `${api.url}/e`, lastEventId: '4', onMessage: (m) => void seen.push(m.id!), isTerminal: isEnd });
    expect(seen).toEqual(['5', '6']);
    expect(result.end).toBe('terminal');
    expect(api.requests[0].headers['last-event-id']).toBe('4');
  });

  it('delivers a frame under an id already delivered only when the caller says it follows that id (a live-only event)', async () => {
    api = await startFakeApi((_req, res) => {
      sseHead(res);
      res.write(frame(1) + frame(1, 'debate_token_delta') + frame(1) + frame(1, 'debate_token_delta') + frame(2, 'end'));
    });
    const seen: string[] = [];
    await readEventStream({
      url: `${api.url}/e`,
      onMessage: (m) => void seen.push(`${m.id}:${m.event}`),
      isTerminal: isEnd,
      followsLastId: (m) => m.event === 'debate_token_delta',
    });
    // The repeated stored frame is dropped; both frames that follow id 1 are delivered.
    expect(seen).toEqual(['1:tick', '1:debate_token_delta', '1:debate_token_delta', '2:end']);
  });

  it('treats a silent connection as dropped after the idle timeout and reconnects', async () => {
    let connection = 0;
    api = await startFakeApi((_req, res) => {
      connection++;
      sseHead(res);
      if (connection === 1) res.write(frame(1)); // then silence, no heartbeat, no close
      else res.end(frame(2, 'end'));
    });
    const seen: string[] = [];
    const reasons: string[] = [];
    await readEventStream({
      url: `${api.url}/e`,
      idleTimeoutMs: 150,
      retryMs: 10,
      onMessage: (m) => void seen.push(m.id!),
      isTerminal: isEnd,
      onReconnect: ({ reason }) => reasons.push(reason),
    });
    expect(seen).toEqual(['1', '2']);
    expect(reasons).toEqual(['no data for 150 ms']);
  });

  it('retries a 503 but not a 404, which it reports with the body', async () => {
    let n = 0;
    api = await startFakeApi((req, res) => {
      n++;
      if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not_found","message":"Cannot GET /missing"}');
        return;
      }
      if (n === 1) {
        res.writeHead(503);
        res.end('busy');
        return;
      }
      sseHead(res);
      res.end(frame(1, 'end'));
    });
    const ok = await readEventStream({ url: `${api.url}/e`, retryMs: 10, onMessage: () => undefined, isTerminal: isEnd });
    expect(ok).toMatchObject({ end: 'terminal', reconnects: 1 });

    const err = await readEventStream({ url: `${api.url}/missing`, retryMs: 10, onMessage: () => undefined }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SseHttpError);
    expect(err).toMatchObject({ status: 404, body: '{"error":"not_found","message":"Cannot GET /missing"}' });
    expect(api.requests.filter((r) => r.url === '/missing')).toHaveLength(1);
  });

  it('ends quietly on 204 (the server has nothing more after a terminal event)', async () => {
    api = await startFakeApi((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const result = await readEventStream({ url: `${api.url}/e`, lastEventId: '9', onMessage: () => undefined });
    expect(result).toEqual({ end: 'closed', lastEventId: '9', reconnects: 0 });
  });

  it('fails at once when nothing listens, and gives up after maxRetries drops without progress', async () => {
    const port = await closedPort();
    const refused = await readEventStream({ url: `http://127.0.0.1:${port}/e`, onMessage: () => undefined }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SseConnectError);
    expect((refused as SseConnectError).reason).toBe('ECONNREFUSED');

    api = await startFakeApi((_req, res) => {
      sseHead(res);
      res.end(); // connects, sends nothing, closes
    });
    const gaveUp = await readEventStream({ url: `${api.url}/e`, retryMs: 5, maxRetries: 3, onMessage: () => undefined }).catch((e: unknown) => e);
    expect(gaveUp).toBeInstanceOf(SseGaveUpError);
    expect(api.requests).toHaveLength(4);
  });

  it('stops when the caller aborts', async () => {
    api = await startFakeApi((_req, res) => {
      sseHead(res);
      res.write(frame(1));
    });
    const ctrl = new AbortController();
    const result = await readEventStream({
      url: `${api.url}/e`,
      signal: ctrl.signal,
      onMessage: () => ctrl.abort(),
    });
    expect(result.end).toBe('aborted');
    expect(result.lastEventId).toBe('1');
  });
});
