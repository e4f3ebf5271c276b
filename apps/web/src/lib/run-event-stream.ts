import type { RunEventEnvelope } from '@roundtable/contracts';
import { streamEndedAfter } from '@roundtable/run-view';
import { SseParser } from './sse-parser';

/** What the run page's `Stream` status says. */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended';

/** How a follow ended: the run's log is all read, the page left, the token was refused, or the api said no. */
export type FollowOutcome = { kind: 'ended' } | { kind: 'aborted' } | { kind: 'unauthorized' } | { kind: 'refused'; status: number; message: string };

export interface FollowOptions {
  /** `/v1/runs/:id/events?through=end`. */
  url: string;
  token: () => string | null;
  /** The view's lastSequence, read at each (re)connect: sent as Last-Event-ID when above 0. */
  lastSequence: () => number;
  onEnvelope: (envelope: RunEventEnvelope) => void;
  onState: (state: StreamState) => void;
  signal: AbortSignal;
  fetch?: typeof fetch;
  /** Waits ms or until the signal aborts (tests pass one that does not wait). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** First reconnect delay; doubled each failed try up to maxDelayMs. A `retry:` frame replaces it. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/** Statuses worth trying again: the api restarting, a proxy in between, the rate limit. */
const RETRYABLE = (status: number) => status >= 500 || status === 408 || status === 429;

async function messageOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the status says enough
  }
  return `the event stream answered ${res.status}`;
}

/**
 * Follows a run's events: GET the stream with fetch (Authorization and, on a reconnect,
 * Last-Event-ID — EventSource can send neither header we need), parse it as it arrives, hand
 * each envelope on, and reconnect with backoff when the connection drops. A 204 (or a clean end
 * after a stream-end event) means the log is all read. Envelopes may repeat across a reconnect;
 * the reducer's sequence gate makes that harmless.
 */
export async function followRunEvents(o: FollowOptions): Promise<FollowOutcome> {
  const doFetch = o.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const sleep = o.sleep ?? abortableSleep;
  let baseDelay = o.initialDelayMs ?? 1000;
  const maxDelay = o.maxDelayMs ?? 15000;
  let failures = 0;
  // Whether the envelopes folded so far end at a stream end (trailing warnings included): run-view's rule.
  let atEnd = false;

  const backoff = async () => {
    o.onState('reconnecting');
    await sleep(Math.min(maxDelay, baseDelay * 2 ** failures), o.signal);
    failures++;
  };

  o.onState('connecting');
  while (!o.signal.aborted) {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    const token = o.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    const after = o.lastSequence();
    if (after > 0) headers['Last-Event-ID'] = String(after);
    let res: Response;
    try {
      res = await doFetch(o.url, { headers, signal: o.signal, cache: 'no-store' });
    } catch {
      if (o.signal.aborted) break;
      await backoff();
      continue;
    }
    if (res.status === 204) {
      o.onState('ended');
      return { kind: 'ended' };
    }
    if (res.status === 401) return { kind: 'unauthorized' };
    if (!res.ok || !res.body) {
      if (RETRYABLE(res.status)) {
        await backoff();
        continue;
      }
      return { kind: 'refused', status: res.status, message: await messageOf(res) };
    }
    o.onState('live');
    const parser = new SseParser();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const parsed = parser.push(value);
        if (parsed.retryMs !== null) baseDelay = parsed.retryMs;
        for (const frame of parsed.frames) {
          let envelope: RunEventEnvelope;
          try {
            envelope = JSON.parse(frame.data) as RunEventEnvelope;
          } catch {
            continue; // a frame that is not an envelope is not ours to fold
          }
          failures = 0;
          atEnd = streamEndedAfter(atEnd, envelope.type);
          o.onEnvelope(envelope);
        }
      }
    } catch {
      if (o.signal.aborted) break;
    }
    if (o.signal.aborted) break;
    if (atEnd) {
      o.onState('ended');
      return { kind: 'ended' };
    }
    // Dropped mid-run (the api restarted, a proxy timed out): pick up after the last sequence folded.
    await backoff();
  }
  return { kind: 'aborted' };
}
