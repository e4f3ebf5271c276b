/**
 * A streaming parser of the text/event-stream format (the WHATWG "server-sent events" rules),
 * for a fetch body read chunk by chunk: EventSource cannot send an Authorization header, so the
 * workbench reads the stream itself. Chunks may split a frame, a line or a CRLF anywhere.
 */

export interface SseFrame {
  /** The frame's `id:` (a run event's sequence), or null when it had none. */
  id: string | null;
  /** `event:`; "message" when the frame named none, as EventSource does. */
  event: string;
  /** The `data:` lines joined with newlines. */
  data: string;
}

export interface SseParseResult {
  frames: SseFrame[];
  /** A `retry:` the server sent in these chunks (ms), else null. */
  retryMs: number | null;
  /** How many `:` comment lines (heartbeats) arrived: a sign the connection is alive. */
  comments: number;
}

export class SseParser {
  private buffer = '';
  private id: string | null = null;
  private event = '';
  private data: string[] = [];
  private sawField = false;

  /** Feeds one decoded chunk; returns the frames it completed. */
  push(chunk: string): SseParseResult {
    this.buffer += chunk;
    const out: SseParseResult = { frames: [], retryMs: null, comments: 0 };
    for (;;) {
      const nl = this.nextLineEnd();
      if (nl === null) break;
      const line = this.buffer.slice(0, nl.at);
      this.buffer = this.buffer.slice(nl.at + nl.length);
      this.line(line, out);
    }
    return out;
  }

  /** Where the next line ends; a CR at the very end of the buffer waits, since an LF may follow. */
  private nextLineEnd(): { at: number; length: number } | null {
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c === '\n') return { at: i, length: 1 };
      if (c === '\r') {
        if (i + 1 === this.buffer.length) return null;
        return { at: i, length: this.buffer[i + 1] === '\n' ? 2 : 1 };
      }
    }
    return null;
  }

  private line(line: string, out: SseParseResult): void {
    if (line === '') {
      if (this.sawField && this.data.length) out.frames.push({ id: this.id, event: this.event || 'message', data: this.data.join('\n') });
      this.event = '';
      this.data = [];
      this.sawField = false;
      // The id persists across frames, as the spec's "last event ID buffer" does; each of ours has one anyway.
      return;
    }
    if (line.startsWith(':')) {
      out.comments++;
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.sawField = true;
    switch (field) {
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'event':
        this.event = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'retry':
        if (/^\d+$/.test(value)) out.retryMs = Number(value);
        break;
      default:
        // Unknown fields are ignored, as the spec says.
        break;
    }
  }
}
