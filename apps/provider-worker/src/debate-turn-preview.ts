import type { JudgeRole, LiveRunEvent } from '@roundtable/contracts';
import { readPartialTurn } from './partial-turn';

/** Where a preview's events go: the run's Redis channel (RunEventPublisher.publishLiveOnly). */
export type LiveEventSink = (event: LiveRunEvent) => Promise<void>;

export interface DebateTurnPreviewOptions {
  /** At most one publish per this many ms: a fast stream must not flood Redis (default 50). */
  intervalMs?: number;
  /** How long finish() waits for the last publishes before the call's outcome goes on without them (default 1000). */
  drainMs?: number;
  onError?: (e: Error) => void;
}

/**
 * A debate turn's text as the judge's model streams it, published as debate_token_delta events
 * (speaker, round, the message's new text) on the run's channel, never stored. The reply is a
 * DebateTurn JSON object, so what is published is its `message` as far as it has arrived
 * (readPartialTurn), once its `round` is known; the JSON around it is not. Pieces are batched:
 * the first goes out at once, the rest at most one publish per interval, in order. finish()
 * sends what is left and waits for it, so every delta is on the channel before the call's
 * outcome (and so the whole turn, published after it) — Redis keeps one connection's order.
 * A publish that fails loses only a preview.
 */
export class DebateTurnPreview {
  private text = '';
  /** How much of the decoded message has been published. */
  private sent = 0;
  private lastPublishAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failed = false;
  /** After finish() or cancel(): an adapter the backstop gave up on may still call onDelta, and must publish nothing. */
  private closed = false;
  private readonly intervalMs: number;

  constructor(
    private readonly turn: { runId: string; speaker: JudgeRole },
    private readonly sink: LiveEventSink,
    private readonly opts: DebateTurnPreviewOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 50;
  }

  /** The request's onDelta: a piece of the reply's text. */
  readonly push = (piece: string): void => {
    if (this.closed) return;
    this.text += piece;
    if (this.timer) return;
    const wait = Math.max(0, this.lastPublishAt + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
  };

  /** The reply is whole: what is left goes out, and the publishes are waited for (within drainMs). */
  async finish(): Promise<void> {
    this.stopTimer();
    this.flush();
    this.closed = true;
    await this.drained();
  }

  /** The call failed: nothing more goes out (the retry's turn streams afresh); what was sent stays sent. */
  async cancel(): Promise<void> {
    this.closed = true;
    this.stopTimer();
    await this.drained();
  }

  private flush(): void {
    const { round, message } = readPartialTurn(this.text);
    if (round === null || round < 1 || message.length <= this.sent) return;
    const delta = message.slice(this.sent);
    this.sent = message.length;
    this.lastPublishAt = Date.now();
    const event: LiveRunEvent = {
      type: 'debate_token_delta',
      run_id: this.turn.runId,
      payload: { speaker: this.turn.speaker, round, delta },
      created_at: new Date().toISOString(),
    };
    this.chain = this.chain.then(() => this.sink(event)).catch((e: unknown) => this.report(e));
  }

  private drained(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.opts.drainMs ?? 1000);
    });
    return Promise.race([this.chain, limit]).finally(() => clearTimeout(timer));
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private report(e: unknown): void {
    // Once a call: a Redis outage would otherwise log every 50 ms of every streaming turn.
    if (this.failed) return;
    this.failed = true;
    this.opts.onError?.(e instanceof Error ? e : new Error(String(e)));
  }
}
