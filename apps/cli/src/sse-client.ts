/**
 * A small Server-Sent Events reader over fetch's body stream: enough of the WHATWG
 * event-stream rules for a CLI that must not lose or repeat an event. It tracks the last
 * event id, reconnects with `Last-Event-ID` when the connection drops (or goes silent past
 * the idle timeout: the server sends heartbeat comments, so silence means a dead link),
 * skips frames it has already delivered, and stops after the frame the caller calls terminal.
 */

export interface SseMessage {
  /** The last event id in force when the frame was dispatched (null before any `id:`). */
  id: string | null;
  /** `event:` field, or `message` when the frame named none. */
  event: string;
  data: string;
}

/** Incremental text/event-stream parser: feed it decoded text, get the frames completed so far. */
export class SseFrameParser {
  /** Committed only when a frame completes (the spec's rule), so a half-received frame's id never counts. */
  lastEventId: string | null;
  private idBuffer: string | null;
  /** The server's `retry:` advice in ms, if it sent one. */
  retryMs: number | null = null;
  /** Comment lines seen (heartbeats): lets a caller tell a live idle stream from a dead one. */
  comments = 0;
  private buffer = '';
  private skipLeadingLf = false;
  private data: string[] = [];
  private eventType = '';

  constructor(lastEventId: string | null = null) {
    this.lastEventId = lastEventId;
    this.idBuffer = lastEventId;
  }

  push(text: string): SseMessage[] {
    const out: SseMessage[] = [];
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      if (ch === '\n' && this.skipLeadingLf && i === start) {
        // The \n of a \r\n pair split across two chunks.
        this.skipLeadingLf = false;
        start = i + 1;
        continue;
      }
      this.skipLeadingLf = false;
      const line = this.buffer.slice(start, i);
      if (ch === '\r') {
        if (this.buffer[i + 1] === '\n') i++;
        else if (i + 1 === this.buffer.length) this.skipLeadingLf = true;
      }
      start = i + 1;
      const message = this.line(line);
      if (message) out.push(message);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** Drops a half-received frame (a dropped connection): the server re-sends it after Last-Event-ID. */
  resetFrame(): void {
    this.buffer = '';
    this.skipLeadingLf = false;
    this.data = [];
    this.eventType = '';
    this.idBuffer = this.lastEventId;
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      this.comments++;
      return null;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored, as the spec says
    }
    return null;
  }

  private dispatch(): SseMessage | null {
    this.lastEventId = this.idBuffer;
    const data = this.data;
    const event = this.eventType || 'message';
    this.data = [];
    this.eventType = '';
    if (data.length === 0) return null;
    return { id: this.lastEventId, event, data: data.join('\n') };
  }
}

/** The stream answered with an HTTP status that retrying will not fix (404, 401 …). */
export class SseHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly url: string,
  ) {
    super(`GET ${url} answered HTTP ${status}${body ? `: ${body.slice(0, 500)}` : ''}`);
  }
}

/** The very first connection failed at the network level: nothing is listening there. */
export class SseConnectError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot connect to ${url}: ${reason}`);
  }
}

/** The stream kept dropping and every reconnect failed. */
export class SseGaveUpError extends Error {}

export interface EventStreamOptions {
  url: string;
  headers?: Record<string, string>;
  /** Resume after this id (sent as Last-Event-ID on the first request too). */
  lastEventId?: string | null;
  onMessage(message: SseMessage): void | Promise<void>;
  /** The frame after which the stream is complete; no reconnect follows it. */
  isTerminal?(message: SseMessage): boolean;
  /**
   * A frame after which a clean close may be the end (a refused appeal's trailing warnings): the
   * stream is asked again at once and without a reconnect note, and its 204 says whether it was.
   */
  mayEndAtClose?(message: SseMessage): boolean;
  /**
   * Frames that carry the id of the frame they follow instead of one of their own (the api's
   * live-only events: a debate turn's tokens), delivered although that id was delivered already.
   */
  followsLastId?(message: SseMessage): boolean;
  /** Wait between reconnects unless the server sent `retry:` (default 1000 ms). */
  retryMs?: number;
  /** Reconnects in a row that may fail before giving up; any delivered frame resets the count (default 10). */
  maxRetries?: number;
  /** No byte (not even a heartbeat) for this long counts as a dropped connection (default 45 s). */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** Told about every reconnect, e.g. to print a note. */
  onReconnect?(info: { attempt: number; lastEventId: string | null; reason: string }): void;
  fetch?: typeof fetch;
}

export interface EventStreamResult {
  /** `terminal`: the terminal frame arrived; `closed`: the server said 204 (nothing more); `aborted`: the caller's signal. */
  end: 'terminal' | 'closed' | 'aborted';
  lastEventId: string | null;
  reconnects: number;
}

const numericId = (id: string | null): number | null => (id !== null && /^\d+$/.test(id) ? Number(id) : null);

function reasonOf(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; message?: string } | null;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Reads the stream at `url` until the terminal frame, reconnecting as needed. Frames whose
 * numeric id is not above the last one delivered are dropped, so a server that replays an
 * overlap at a reconnect never makes a caller see a sequence twice.
 */
export async function readEventStream(opts: EventStreamOptions): Promise<EventStreamResult> {
  const doFetch = opts.fetch ?? fetch;
  const maxRetries = opts.maxRetries ?? 10;
  const idleTimeoutMs = opts.idleTimeoutMs ?? 45_000;
  const parser = new SseFrameParser(opts.lastEventId ?? null);
  let delivered = numericId(parser.lastEventId);
  let connectedOnce = false;
  let failures = 0;
  let reconnects = 0;

  for (;;) {
    if (opts.signal?.aborted) return { end: 'aborted', lastEventId: parser.lastEventId, reconnects };
    const conn = new AbortController();
    const onAbort = () => conn.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let idle: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => conn.abort(new Error(`no data for ${idleTimeoutMs} ms`)), idleTimeoutMs);
    };
    let dropReason: string;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache', ...opts.headers };
      if (parser.lastEventId !== null) headers['last-event-id'] = parser.lastEventId;
      armIdle();
      let res: Response;
      try {
        res = await doFetch(opts.url, { headers, signal: conn.signal });
      } catch (err) {
        if (opts.signal?.aborted) return { end: 'aborted', lastEventId: parser.lastEventId, reconnects };
        if (!connectedOnce) throw new SseConnectError(opts.url, reasonOf(err));
        throw err;
      }
      connectedOnce = true;
      if (res.status === 204) return { end: 'closed', lastEventId: parser.lastEventId, reconnects };
      if (res.status !== 200 || !res.body) {
        const body = await res.text().catch(() => '');
        // A server error or an overloaded proxy may pass; anything else will answer the same again.
        if (res.status < 500) throw new SseHttpError(res.status, body, opts.url);
        throw new Error(`HTTP ${res.status}`);
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder('utf-8');
      let lastHere: SseMessage | null = null;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          armIdle();
          for (const message of parser.push(decoder.decode(value, { stream: true }))) {
            const n = numericId(message.id);
            if (n !== null && delivered !== null && (n < delivered || (n === delivered && !opts.followsLastId?.(message)))) continue;
            if (n !== null) delivered = n;
            failures = 0;
            await opts.onMessage(message);
            lastHere = message;
            if (opts.isTerminal?.(message)) {
              await reader.cancel().catch(() => undefined);
              return { end: 'terminal', lastEventId: parser.lastEventId, reconnects };
            }
          }
        }
      } finally {
        reader.releaseLock();
      }
      if (lastHere && opts.mayEndAtClose?.(lastHere)) {
        parser.resetFrame();
        continue;
      }
      dropReason = 'the server closed the stream before the run ended';
    } catch (err) {
      if (err instanceof SseHttpError || err instanceof SseConnectError) throw err;
      if (opts.signal?.aborted) return { end: 'aborted', lastEventId: parser.lastEventId, reconnects };
      const idleReason = conn.signal.aborted ? reasonOf(conn.signal.reason) : null;
      dropReason = idleReason ?? reasonOf(err);
    } finally {
      clearTimeout(idle);
      opts.signal?.removeEventListener('abort', onAbort);
      conn.abort();
    }

    parser.resetFrame();
    failures++;
    if (failures > maxRetries) {
      throw new SseGaveUpError(`the event stream at ${opts.url} dropped ${failures} times in a row (last: ${dropReason}); giving up`);
    }
    reconnects++;
    opts.onReconnect?.({ attempt: failures, lastEventId: parser.lastEventId, reason: dropReason });
    await sleep(parser.retryMs ?? opts.retryMs ?? 1000, opts.signal);
  }
}
