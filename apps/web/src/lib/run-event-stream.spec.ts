import type { RunEventEnvelope } from '@roundtable/contracts';
import { followRunEvents, type StreamState } from './run-event-stream';

const env = (sequence: number, type: string): RunEventEnvelope => ({ type, run_id: 'r1', sequence, payload: {}, created_at: '2026-01-01T00:00:00Z' });
const frame = (e: RunEventEnvelope) => `id: ${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

/** A streamed 200 whose body sends the chunks, then ends or (fail) errors like a dropped connection. */
function streamed(chunks: string[], fail = false): Response {
  const enc = new TextEncoder();
  const queue = [...chunks];
  // One chunk per pull: error() would drop chunks still queued, and a real drop comes after them.
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = queue.shift();
      if (next !== undefined) c.enqueue(enc.encode(next));
      else if (fail) c.error(new Error('connection reset'));
      else c.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

interface Harness {
  states: StreamState[];
  seen: number[];
  requests: Record<string, string>[];
  sleeps: number[];
}

/** Runs followRunEvents against scripted replies, one per request; the view's lastSequence is the highest folded. */
async function follow(replies: (() => Response | Promise<Response>)[], token: string | null = 'tok') {
  const h: Harness = { states: [], seen: [], requests: [], sleeps: [] };
  let last = 0;
  const outcome = await followRunEvents({
    url: '/v1/runs/r1/events?through=end',
    token: () => token,
    lastSequence: () => last,
    onEnvelope: (e) => {
      h.seen.push(e.sequence);
      last = Math.max(last, e.sequence);
    },
    onState: (s) => h.states.push(s),
    signal: new AbortController().signal,
    fetch: async (_url, init) => {
      h.requests.push({ ...(init?.headers as Record<string, string>) });
      const next = replies.shift();
      if (!next) throw new Error('no more scripted replies');
      return next();
    },
    sleep: async (ms) => {
      h.sleeps.push(ms);
    },
    initialDelayMs: 100,
    maxDelayMs: 1000,
  });
  return { outcome, ...h };
}

describe('followRunEvents', () => {
  it('reconnects after a drop with Last-Event-ID and ends after the terminal event', async () => {
    const r = await follow([
      () => streamed([frame(env(1, 'run_created')), ': heartbeat\n\n', frame(env(2, 'run_started')).slice(0, 10), frame(env(2, 'run_started')).slice(10)], true),
      () => streamed([frame(env(2, 'run_started')), frame(env(3, 'run_completed'))]),
    ]);
    expect(r.outcome).toEqual({ kind: 'ended' });
    expect(r.states).toEqual(['connecting', 'live', 'reconnecting', 'live', 'ended']);
    expect(r.requests[0].Authorization).toBe('Bearer tok');
    expect(r.requests[0]['Last-Event-ID']).toBeUndefined();
    expect(r.requests[1]['Last-Event-ID']).toBe('2');
    expect(r.seen).toEqual([1, 2, 2, 3]);
  });

  it('treats a 204 as a stream that has already ended', async () => {
    const r = await follow([() => new Response(null, { status: 204 })]);
    expect(r.outcome).toEqual({ kind: 'ended' });
    expect(r.states).toEqual(['connecting', 'ended']);
  });

  it('reconnects when a stream ends cleanly before any stream-end event (the api restarted)', async () => {
    const r = await follow([() => streamed([frame(env(1, 'run_created'))]), () => new Response(null, { status: 204 })]);
    expect(r.states).toEqual(['connecting', 'live', 'reconnecting', 'ended']);
    expect(r.requests[1]['Last-Event-ID']).toBe('1');
  });

  it('ends without reconnecting when a refused appeal\'s panel_warning and then a budget_warning trail the run\'s end (issue 22)', async () => {
    const r = await follow([() => streamed([frame(env(1, 'run_completed')), frame(env(2, 'panel_warning')), frame(env(3, 'budget_warning'))])]);
    expect(r.outcome).toEqual({ kind: 'ended' });
    expect(r.states).toEqual(['connecting', 'live', 'ended']);
    expect(r.requests).toHaveLength(1);
  });

  it('still reconnects when a budget_warning mid-run is the last event before a clean close', async () => {
    const r = await follow([() => streamed([frame(env(1, 'run_started')), frame(env(2, 'budget_warning'))]), () => new Response(null, { status: 204 })]);
    expect(r.states).toEqual(['connecting', 'live', 'reconnecting', 'ended']);
  });

  it('backs off exponentially up to the cap while the api is down, and resets once events flow', async () => {
    const down = () => Promise.reject(new TypeError('Failed to fetch'));
    const r = await follow([down, () => new Response('{}', { status: 503 }), down, down, down, () => streamed([frame(env(1, 'x'))], true), down, () => new Response(null, { status: 204 })]);
    expect(r.sleeps).toEqual([100, 200, 400, 800, 1000, 100, 200]);
    expect(r.outcome).toEqual({ kind: 'ended' });
  });

  it('takes the delay from a retry: frame', async () => {
    const r = await follow([() => streamed(['retry: 50\n\n', frame(env(1, 'x'))], true), () => new Response(null, { status: 204 })]);
    expect(r.sleeps).toEqual([50]);
  });

  it('stops on a 401 without retrying, so the page can ask for a token', async () => {
    const r = await follow([() => new Response('{"error":"unauthorized"}', { status: 401 })], null);
    expect(r.outcome).toEqual({ kind: 'unauthorized' });
    expect(r.requests[0].Authorization).toBeUndefined();
  });

  it('stops on a 404 with the api message', async () => {
    const r = await follow([() => new Response(JSON.stringify({ error: 'run_not_found', message: 'no run r1' }), { status: 404 })]);
    expect(r.outcome).toEqual({ kind: 'refused', status: 404, message: 'no run r1' });
  });

  it('returns aborted when the page leaves', async () => {
    const ac = new AbortController();
    ac.abort();
    const outcome = await followRunEvents({
      url: '/x', token: () => null, lastSequence: () => 0, onEnvelope: () => undefined, onState: () => undefined,
      signal: ac.signal, fetch: async () => { throw new Error('must not fetch'); },
    });
    expect(outcome).toEqual({ kind: 'aborted' });
  });
});
