import { Logger, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { isLiveOnlyEventType, LiveRunEvent, RunEventEnvelope } from '@roundtable/contracts';
import { runEventChannel } from '@roundtable/events';
import { eventFrame } from './sse-frames';
import type { RedisClient } from '@roundtable/queues';

/**
 * What a subscriber is handed per live event: the envelope, and its SSE frame formatted and
 * UTF-8 encoded once for every subscriber (a string would be measured and encoded per socket).
 */
export type RunEventListener = (event: RunEventEnvelope, frame: Buffer) => void;

/**
 * What a subscriber is handed per live-only event (a debate turn's tokens): no frame, since
 * its sequence and frame id are the stream's own (the last stored event that stream sent).
 */
export type LiveOnlyListener = (event: LiveRunEvent) => void;

/** Something the hub ends when the process shuts down (an open SSE response). */
export interface Closable {
  close(): void;
}

interface Channel {
  /** Each subscriber's listener for stored events, with its listener for live-only ones. */
  listeners: Map<RunEventListener, LiveOnlyListener | undefined>;
  /** Settles when Redis has acknowledged SUBSCRIBE: only then may a subscriber read the log. */
  ready: Promise<unknown>;
}

export class RedisSubscribeError extends Error {}

/**
 * The one Redis subscriber connection of this API process, fanned out in process to every SSE
 * client of a run. Channels are subscribed on the first client of a run and unsubscribed
 * after the last, so Redis sees one subscription per (replica, watched run), not one
 * connection per client. Each message is parsed and formatted once, whatever the number of
 * clients. Pub/sub is lossy; the streams recover anything missed from Postgres.
 */
export class RunEventHub implements OnModuleDestroy, OnApplicationShutdown {
  private readonly log = new Logger('run-events');
  private readonly channels = new Map<string, Channel>();
  private readonly open = new Set<Closable>();
  private closing = false;

  constructor(
    /** A connection of its own: a subscribed ioredis connection can run no other command. */
    private readonly subscriber: RedisClient,
    private readonly prefix: string,
    private readonly subscribeTimeoutMs = 5000,
  ) {
    this.subscriber.on('message', (channel: string, message: string) => this.dispatch(channel, message));
    // Without a listener, ioredis reports a lost connection as an unhandled 'error' event.
    this.subscriber.on('error', (e: Error) => this.log.warn(`redis subscriber: ${e.message}`));
  }

  /**
   * Adds a listener for a run's live events and resolves once the subscription is in force,
   * so that everything committed after this resolves reaches the listener. Returns the
   * function that removes it (idempotent).
   */
  async subscribe(runId: string, listener: RunEventListener, onLiveOnly?: LiveOnlyListener): Promise<() => void> {
    if (this.closing) throw new RedisSubscribeError('the api is shutting down');
    const name = runEventChannel(this.prefix, runId);
    let channel = this.channels.get(name);
    if (!channel) {
      channel = { listeners: new Map(), ready: this.subscriber.subscribe(name) };
      this.channels.set(name, channel);
    }
    const joined = channel;
    joined.listeners.set(listener, onLiveOnly);
    let removed = false;
    const remove = () => {
      if (removed) return;
      removed = true;
      joined.listeners.delete(listener);
      if (joined.listeners.size > 0 || this.channels.get(name) !== joined) return;
      this.channels.delete(name);
      // Commands on one connection run in order: a SUBSCRIBE sent after this by a new client wins.
      this.subscriber.unsubscribe(name).catch((e: Error) => this.log.warn(`unsubscribe ${name}: ${e.message}`));
    };
    try {
      await within(joined.ready, this.subscribeTimeoutMs, `redis did not confirm the subscription within ${this.subscribeTimeoutMs} ms`);
    } catch (e) {
      remove();
      if (this.channels.get(name) === joined) this.channels.delete(name);
      throw e instanceof RedisSubscribeError ? e : new RedisSubscribeError((e as Error).message);
    }
    return remove;
  }

  /** Clients of a run in this process (all runs when no id is given). */
  listenerCount(runId?: string): number {
    if (runId !== undefined) return this.channels.get(runEventChannel(this.prefix, runId))?.listeners.size ?? 0;
    let n = 0;
    for (const c of this.channels.values()) n += c.listeners.size;
    return n;
  }

  /** Streams register here so a shutdown can end them: an open response would keep the HTTP server from closing. */
  track(stream: Closable): () => void {
    this.open.add(stream);
    return () => this.open.delete(stream);
  }

  /** Before the HTTP server closes: end every stream; clients reconnect (to any replica) with Last-Event-ID. */
  onModuleDestroy(): void {
    this.closing = true;
    for (const s of [...this.open]) s.close();
  }

  onApplicationShutdown(): void {
    this.subscriber.disconnect();
  }

  private dispatch(channelName: string, message: string): void {
    const channel = this.channels.get(channelName);
    if (!channel || channel.listeners.size === 0) return;
    let json: unknown;
    try {
      json = JSON.parse(message);
    } catch (e) {
      this.log.warn(`dropped a malformed message on ${channelName} (the stream recovers it from Postgres): ${(e as Error).message}`);
      return;
    }
    const type = (json as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && isLiveOnlyEventType(type)) return this.dispatchLiveOnly(channelName, channel, json);
    let event: RunEventEnvelope;
    try {
      event = RunEventEnvelope.parse(json);
    } catch (e) {
      this.log.warn(`dropped a malformed message on ${channelName} (the stream recovers it from Postgres): ${(e as Error).message}`);
      return;
    }
    const frame = Buffer.from(eventFrame(event), 'utf8');
    for (const listener of [...channel.listeners.keys()]) {
      try {
        listener(event, frame);
      } catch (e) {
        this.log.error(`run-event listener failed on ${channelName}: ${(e as Error).stack ?? e}`);
      }
    }
  }

  /** A live-only event is in no log: one that does not parse is gone (its stored turn follows), so it is dropped quietly. */
  private dispatchLiveOnly(channelName: string, channel: Channel, json: unknown): void {
    const parsed = LiveRunEvent.safeParse(json);
    if (!parsed.success) return;
    for (const onLiveOnly of [...channel.listeners.values()]) {
      try {
        onLiveOnly?.(parsed.data);
      } catch (e) {
        this.log.error(`run-event listener failed on ${channelName}: ${(e as Error).stack ?? e}`);
      }
    }
  }
}

function within<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisSubscribeError(message)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
