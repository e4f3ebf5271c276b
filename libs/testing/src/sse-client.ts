import http, { Agent, IncomingHttpHeaders } from 'node:http';

/** One block of an event stream: an event (id/event/data), or a comment (`: heartbeat`), or a `retry:`. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

/**
 * A minimal, allocation-light SSE parser for tests and benches (our server writes `\n` line
 * ends and one data line per event; `\r\n` is tolerated). Feed it chunks; it returns the
 * blocks completed so far.
 */
export class SseParser {
  private rest = '';

  push(chunk: string): SseFrame[] {
    const text = this.rest + chunk;
    const frames: SseFrame[] = [];
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n\n', start);
      if (end < 0) break;
      const frame = parseBlock(text.slice(start, end));
      if (frame) frames.push(frame);
      start = end + 2;
    }
    this.rest = text.slice(start);
    return frames;
  }
}

function parseBlock(block: string): SseFrame | undefined {
  const frame: SseFrame = {};
  let any = false;
  for (const raw of block.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line) continue;
    any = true;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === '') frame.comment = value;
    else if (field === 'id') frame.id = value;
    else if (field === 'event') frame.event = value;
    else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    else if (field === 'retry') frame.retry = Number(value);
  }
  return any ? frame : undefined;
}

export interface SseOptions {
  headers?: Record<string, string>;
  agent?: Agent;
  /** Called per frame as it is parsed (benches); frames are also kept in `frames` unless `keep` is false. */
  onFrame?: (frame: SseFrame) => void;
  keep?: boolean;
}

/** An open event stream: what arrived so far, a way to wait for more, and its end. */
export interface SseConnection {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every frame so far, heartbeats and `retry:` included. */
  frames: SseFrame[];
  /** The body when the answer was not a stream (an error's JSON). */
  body: string;
  /** Resolves when the server ends the response (or the connection breaks). */
  ended: Promise<void>;
  /** Resolves with the frames so far once `until` holds for one; rejects after `timeoutMs`. */
  waitFor(until: (f: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame[]>;
  /** Drops the connection from the client side. */
  close(): void;
}

/** The events (frames with an id) of a list of frames, parsed. */
export function sseEvents<T = { type: string; sequence: number; payload: Record<string, unknown> }>(frames: SseFrame[]): (T & { frameId: string; frameEvent?: string })[] {
  return frames.filter((f) => f.data !== undefined).map((f) => ({ ...(JSON.parse(f.data!) as T), frameId: f.id!, frameEvent: f.event }));
}

/**
 * Opens `url` as an event stream over node:http (not fetch, so a bench can give it an Agent
 * holding hundreds of sockets). Resolves once the response headers arrive; a non-200 answer
 * resolves too, with its body read into `body`.
 */
export function openSse(url: string, opts: SseOptions = {}): Promise<SseConnection> {
  const keep = opts.keep ?? true;
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...opts.headers }, agent: opts.agent }, (res) => {
      res.setEncoding('utf8');
      const parser = new SseParser();
      const waiters = new Set<{ until: (f: SseFrame) => boolean; resolve: () => void }>();
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      const conn: SseConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames: [],
        body: '',
        ended,
        waitFor(until, timeoutMs = 10_000) {
          if (conn.frames.some(until)) return Promise.resolve(conn.frames);
          return new Promise((ok, fail) => {
            const w = {
              until,
              resolve: () => {
                clearTimeout(timer);
                waiters.delete(w);
                ok(conn.frames);
              },
            };
            const timer = setTimeout(() => {
              waiters.delete(w);
              fail(new Error(`no matching SSE frame within ${timeoutMs} ms; got ${JSON.stringify(conn.frames.slice(-5))}${done ? ' (stream ended)' : ''}`));
            }, timeoutMs);
            waiters.add(w);
          });
        },
        close() {
          req.destroy();
        },
      };
      let done = false;
      res.on('data', (chunk: string) => {
        if (conn.status !== 200) {
          conn.body += chunk;
          return;
        }
        for (const f of parser.push(chunk)) {
          opts.onFrame?.(f);
          if (!keep) continue;
          conn.frames.push(f);
          for (const w of [...waiters]) if (w.until(f)) w.resolve();
        }
      });
      const finish = () => {
        done = true;
        endedResolve();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      if (conn.status === 200) resolve(conn);
      else res.on('end', () => resolve(conn));
    });
    req.on('error', reject);
  });
}
