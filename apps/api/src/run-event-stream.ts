import type { ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { LiveRunEvent, RunEventEnvelope } from '@roundtable/contracts';
import { readRunEventsJson } from '@roundtable/events';
import type { Closable, RunEventHub } from './run-event-hub';
import { HEARTBEAT_FRAME, jsonEventFrame, liveOnlyFrame, retryFrame } from './sse-frames';
import { APPEAL_PENDING_SQL, endsStream, mayEndStream, RUN_ENDED_SQL } from './stream-end';

export interface RunEventStreamOptions {
  /** Idle time after which a heartbeat comment is sent (and the log is checked for anything pub/sub lost). */
  heartbeatMs: number;
  /** The reconnection delay announced to EventSource. */
  retryMs: number;
  /** Events per Postgres read during replay and catch-up. */
  pageSize: number;
  /** Bytes a slow client may leave unread before it is dropped; it reconnects and replays from Postgres. */
  maxBufferedBytes: number;
  /** Live events a client may have waiting (while its catch-up waits on its socket) before it is dropped likewise. */
  maxPending: number;
}

interface Live {
  event: RunEventEnvelope;
  frame: Buffer;
}

const isTerminal = endsStream;

/**
 * One SSE client of one run. Subscribed first, it buffers live events while it replays the
 * log from Postgres after the resume point, then sends the buffer and goes live; every frame
 * is sent once, in sequence order, with no gap:
 *  - anything at or below the last sequence sent is dropped (replay and live overlap at the seam);
 *  - a live event past a gap (a message lost or overtaken) waits while the gap is read from
 *    Postgres, which already holds it because events are published after their commit;
 *  - on idle, the heartbeat also reads the log, so an event whose message was lost entirely
 *    is late by one heartbeat at most.
 * The stream ends after a terminal event. One pump at a time writes, so frames never interleave.
 *
 * With a read replica (`replay`), each catch-up reads the log from the replica first and then,
 * once the replica has no more, the rest from the primary (`ds`): the bulk of a long replay costs
 * the primary nothing, and the last read is always the primary's, which holds every event it has
 * committed — so a lagging replica delays nothing and skips nothing. A replica's copy of a run's log
 * is a prefix of the primary's (a run's events are committed in sequence order, under its row's
 * lock, and a standby shows commits in the primary's order), so reading it never jumps a hole.
 * Whether a stream ends (the run's head) is always asked of the primary.
 */
export class RunEventStream implements Closable {
  private readonly log = new Logger('run-events');
  private lastSent: number;
  private readonly pending: Live[] = [];
  private live = false;
  private pumping = false;
  private catchUpWanted = false;
  private closed = false;
  private unsubscribe?: () => void;
  private untrack?: () => void;
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly runId: string,
    after: number,
    private readonly res: ServerResponse,
    private readonly ds: DataSource,
    private readonly hub: RunEventHub,
    private readonly opts: RunEventStreamOptions,
    /**
     * `?through=end`: a stream-end event ends the stream only when the log holds nothing after it and no
     * appeal is pending, so a client that asks gets a resumed run's and an appeal's events on one stream.
     */
    private readonly throughLog = false,
    /** Where catch-ups read first: the read replica, or `ds` itself when there is none. */
    private readonly replay: DataSource = ds,
  ) {
    this.lastSent = after;
  }

  /** Joins the run's channel; throws (before any byte is written) if Redis cannot confirm it. */
  async subscribe(): Promise<void> {
    this.unsubscribe = await this.hub.subscribe(
      this.runId,
      (event, frame) => this.onLive(event, frame),
      (event) => this.onLiveOnly(event),
    );
  }

  /** Sends the headers, replays, then follows live until a terminal event or a disconnect. */
  async run(): Promise<void> {
    const { res } = this;
    res.on('close', () => this.cleanup());
    if (!res.socket || res.socket.destroyed || res.destroyed) {
      // The client left while the subscription was being set up: its 'close' has been and gone.
      return this.cleanup();
    }
    this.untrack = this.hub.track(this);
    res.socket?.setNoDelay(true);
    res.socket?.setTimeout(0);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // nginx and similar proxies buffer responses unless told not to.
      'X-Accel-Buffering': 'no',
    });
    res.write(retryFrame(this.opts.retryMs));
    this.heartbeat = setTimeout(() => this.onIdle(), this.opts.heartbeatMs);
    try {
      if (await this.catchUp()) return this.finish();
      this.live = true;
      await this.pump();
    } catch (e) {
      this.fail(e);
    }
  }

  /** Ends the stream from outside (shutdown); the client reconnects with Last-Event-ID. */
  close(): void {
    if (this.closed) return;
    this.cleanup();
    this.res.end();
  }

  private onLive(event: RunEventEnvelope, frame: Buffer): void {
    if (this.closed || event.sequence <= this.lastSent) return;
    if (this.live && !this.pumping && this.pending.length === 0 && event.sequence === this.lastSent + 1) {
      // The common case, taken synchronously: with hundreds of clients per event, a promise each adds up.
      this.sendLive(frame);
      this.lastSent = event.sequence;
      if (isTerminal(event.type)) this.endAtStreamEnd();
      else if (mayEndStream(event.type)) this.endIfLogEndsHere();
      return;
    }
    if (this.pending.length >= this.opts.maxPending) return this.drop(`${this.pending.length} live events waiting`);
    this.pending.push({ event, frame });
    if (this.live) this.pump().catch((e: unknown) => this.fail(e));
  }

  /**
   * A live-only event (a debate turn's tokens) is sent only while the stream is live and caught
   * up — nothing pending, no catch-up running — and dropped otherwise: it is in no log to
   * recover from, and the whole turn (a stored event) follows it anyway. It goes out as the
   * stored event it follows: its envelope's sequence and its frame's id are the last sequence
   * sent. So it never advances Last-Event-ID — a reconnect resumes after the last stored event,
   * which is all the log can replay — and a reducer's sequence gate stays where it was.
   */
  private onLiveOnly(event: LiveRunEvent): void {
    if (this.closed || !this.live || this.pumping || this.pending.length > 0 || this.lastSent < 1) return;
    this.sendLive(Buffer.from(liveOnlyFrame(event, this.lastSent), 'utf8'));
  }

  private onIdle(): void {
    if (this.closed) return;
    this.res.write(HEARTBEAT_FRAME);
    this.heartbeat?.refresh();
    this.catchUpWanted = true;
    if (this.live) this.pump().catch((e: unknown) => this.fail(e));
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      while (!this.closed) {
        if (this.catchUpWanted) {
          this.catchUpWanted = false;
          if (await this.catchUp()) return this.finish();
          continue;
        }
        const next = this.pending.shift();
        if (!next) return;
        const { event } = next;
        if (event.sequence <= this.lastSent) continue;
        if (event.sequence > this.lastSent + 1) {
          // The log has everything up to this event: it was committed before it was published.
          if (await this.catchUp()) return this.finish();
          if (event.sequence > this.lastSent) {
            this.log.warn(`run ${this.runId}: event ${event.sequence} still past a gap after reading the log at ${this.lastSent}; left to the next catch-up`);
          }
          continue;
        }
        this.sendLive(next.frame);
        this.lastSent = event.sequence;
        if (isTerminal(event.type)) {
          if (!this.throughLog) return this.finish();
          this.endAtStreamEnd();
        } else if (mayEndStream(event.type)) this.endIfLogEndsHere();
      }
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Sends the log after the last sequence sent, a page at a time; true if it sent a terminal
   * event. The next page is read while this one is written, so Postgres and the socket overlap.
   */
  private async catchUp(): Promise<boolean> {
    // From the replica while it has pages, then the primary for whatever it has not replayed yet.
    let from = this.replay;
    const read = (after: number) => readRunEventsJson(from, this.runId, after, this.opts.pageSize);
    let next = read(this.lastSent);
    // Through the log: the type of the last frame this catch-up sent, checked once the log is read out.
    let lastType: string | null = null;
    for (;;) {
      const page = await next;
      if (this.closed) return false;
      const full = page.length === this.opts.pageSize;
      if (full) {
        next = read(page[page.length - 1].sequence);
        // Not awaited if this page ends the stream; its failure must not go unhandled.
        next.catch(() => undefined);
      }
      let chunk = '';
      let terminal = false;
      for (const e of page) {
        chunk += jsonEventFrame(e.sequence, e.type, e.json);
        this.lastSent = e.sequence;
        lastType = e.type;
        if (isTerminal(e.type)) {
          terminal = true;
          // Through the log, a stream end in its middle (a halt before a resume) is just another frame.
          if (!this.throughLog) break;
        }
      }
      // Replay waits for the socket instead of buffering: a 10,000-event log is never all in memory.
      if (chunk && !this.write(chunk)) await this.drained();
      if (terminal && !this.throughLog) return true;
      if (!full && from !== this.ds) {
        from = this.ds;
        next = read(this.lastSent);
        continue;
      }
      if (!full) {
        if (this.throughLog && lastType !== null && isTerminal(lastType)) this.endAtStreamEnd();
        else if (lastType !== null && mayEndStream(lastType)) this.endIfLogEndsHere();
        return false;
      }
    }
  }

  /**
   * After a stream-end frame: ends the stream, or, through the log, ends it once the run's log holds nothing
   * after the last frame sent and no appeal is pending (what the 204 of a new request checks); otherwise
   * what follows arrives live or at the next catch-up, as any other event.
   */
  private endAtStreamEnd(): void {
    if (!this.throughLog) return this.finish();
    this.endIfLogEndsHere({ runEnded: false });
  }

  /**
   * Ends the stream, in either mode, if the frame just sent is still the log's last when the read lands
   * and no appeal is pending — and, with `runEnded` (after a refused appeal's panel_warning, which ends
   * nothing mid-run), if the run has ended: what the 204 of a new request checks too.
   */
  private endIfLogEndsHere(check: { runEnded: boolean } = { runEnded: true }): void {
    const end = this.lastSent;
    this.ds
      .query(`SELECT r.event_seq, ${APPEAL_PENDING_SQL} AS appeal_pending, ${RUN_ENDED_SQL} AS run_ended FROM runs r WHERE r.id = $1`, [this.runId])
      .then((rows: { event_seq: number; appeal_pending: boolean; run_ended: boolean }[]) => {
        const head = rows[0];
        if (head && Number(head.event_seq) === end && !head.appeal_pending && (head.run_ended || !check.runEnded)) this.finish();
      })
      .catch((e: unknown) => this.fail(e));
  }

  /** Writes a chunk; false when the socket's buffer is full. */
  private write(chunk: string | Buffer): boolean {
    if (this.closed) return true;
    const ok = this.res.write(chunk);
    this.heartbeat?.refresh();
    return ok;
  }

  /**
   * Live frames are not held back for a slow client (that would hold the pump); a client
   * that falls too far behind is dropped instead, and its EventSource resumes from the log.
   */
  private sendLive(frame: Buffer): void {
    if (this.write(frame) || this.res.writableLength <= this.opts.maxBufferedBytes) return;
    this.drop(`${this.res.writableLength} bytes unread`);
  }

  private drop(why: string): void {
    this.log.warn(`run ${this.runId}: dropping a client too far behind (${why}); it resumes from the log`);
    this.cleanup();
    this.res.destroy();
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }

  private finish(): void {
    if (this.closed) return;
    this.cleanup();
    this.res.end();
  }

  private fail(e: unknown): void {
    this.log.error(`run ${this.runId}: event stream failed after ${this.lastSent}: ${(e as Error)?.stack ?? e}`);
    if (this.closed) return;
    this.cleanup();
    // Destroyed, not ended: the client sees an error and reconnects from its last id.
    this.res.destroy();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending.length = 0;
    if (this.heartbeat) clearTimeout(this.heartbeat);
    this.unsubscribe?.();
    this.untrack?.();
  }
}
