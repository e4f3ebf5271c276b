import type { LiveRunEvent, RunEventEnvelope } from '@roundtable/contracts';

/**
 * One SSE frame per event. The id is the run's sequence, so a reconnecting EventSource sends
 * it back as Last-Event-ID; the event name is the type, so clients listen per type. JSON has
 * no raw newline, so the envelope always fits one data line.
 */
export function eventFrame(e: RunEventEnvelope): string {
  return jsonEventFrame(e.sequence, e.type, JSON.stringify(e));
}

/** The same frame from an envelope serialised already (the replay reads it as JSON text from Postgres). */
export function jsonEventFrame(sequence: number, type: string, envelopeJson: string): string {
  return `id: ${sequence}\nevent: ${type}\ndata: ${envelopeJson}\n\n`;
}

/**
 * A live-only event's frame: the envelope with `sequence` and the frame `id` both the last
 * stored sequence the stream sent (the event it follows), so Last-Event-ID does not move and
 * a client's sequence gate lets it through without advancing (run-event-stream.ts says why).
 */
export function liveOnlyFrame(e: LiveRunEvent, after: number): string {
  const envelope: RunEventEnvelope = { type: e.type, run_id: e.run_id, sequence: after, payload: e.payload, created_at: e.created_at };
  return jsonEventFrame(after, e.type, JSON.stringify(envelope));
}

/** A comment line: ignored by EventSource, but it keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_FRAME = ': heartbeat\n\n';

/** Tells EventSource how long to wait before it reconnects after the connection drops. */
export const retryFrame = (ms: number): string => `retry: ${ms}\n\n`;
