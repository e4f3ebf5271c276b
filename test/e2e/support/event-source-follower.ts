import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RUN_EVENT_PAYLOADS, RunEventEnvelope } from '@roundtable/contracts';

/** What the EventSource in the worker reported. */
export type FollowerNote =
  | { kind: 'open'; readyState: number; at: number }
  | { kind: 'error'; code: number | null; message: string | null; readyState: number; at: number }
  | { kind: 'event'; type: string; id: string; data: string; readyState: number; at: number }
  | { kind: 'closed'; readyState: number; at: number };

/** EventSource.readyState values. */
export const READY_STATE = { CONNECTING: 0, OPEN: 1, CLOSED: 2 } as const;

/**
 * A real EventSource (the `eventsource` npm package, not our code) following a URL. The
 * package is ESM-only; jest's CommonJS module loader refuses it, and `import()` inside a jest
 * test needs --experimental-vm-modules (tried: both fail). So the EventSource lives in a worker
 * thread, which loads it with Node's own loader, and reports here by message.
 */
export class EventSourceFollower {
  readonly notes: FollowerNote[] = [];
  private readonly worker: Worker;
  private readonly waiters = new Set<() => void>();
  private exited = false;

  constructor(url: string) {
    this.worker = new Worker(path.join(__dirname, 'event-source-follower.worker.mjs'), {
      workerData: { url, types: Object.keys(RUN_EVENT_PAYLOADS) },
    });
    this.worker.on('message', (n: FollowerNote) => {
      this.notes.push(n);
      for (const w of [...this.waiters]) w();
    });
    this.worker.on('exit', () => {
      this.exited = true;
      for (const w of [...this.waiters]) w();
    });
  }

  /** The envelopes received, in arrival order. */
  events(): (RunEventEnvelope & { frameId: string; frameType: string; receivedAt: number })[] {
    return this.notes
      .filter((n): n is Extract<FollowerNote, { kind: 'event' }> => n.kind === 'event')
      .map((n) => ({ ...(JSON.parse(n.data) as RunEventEnvelope), frameId: n.id, frameType: n.type, receivedAt: n.at }));
  }

  /** Waits until `until` holds on the notes so far; fails after timeoutMs with what arrived. */
  waitFor(what: string, until: (notes: FollowerNote[]) => boolean, timeoutMs = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (until(this.notes)) {
          done();
          resolve();
        } else if (this.exited) {
          done();
          reject(new Error(`EventSource worker exited while waiting for ${what}; notes: ${this.describe()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; notes: ${this.describe()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('close');
    // The worker ends once its EventSource is closed; terminate if it lingers.
    const timer = setTimeout(() => void this.worker.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }

  describe(): string {
    return this.notes
      .map((n) => (n.kind === 'event' ? `${n.id}:${n.type}` : n.kind === 'error' ? `error(${n.code ?? ''} ${n.message ?? ''})` : n.kind))
      .join(' ');
  }
}
