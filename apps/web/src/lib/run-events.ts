import type { RunEventEnvelope } from '@roundtable/contracts';
import { isLiveOnly } from '@roundtable/run-view';

/**
 * The run's envelopes as the Events tab lists them: the log's, oldest first, each once. A replay
 * after a reconnect repeats none (the sequence gate, as the view's); a live-only envelope (a
 * debate turn's tokens) is left out: it is no entry of the log, and the turn it streams is.
 */
export function appendEnvelope(list: readonly RunEventEnvelope[], e: RunEventEnvelope): readonly RunEventEnvelope[] {
  if (isLiveOnly(e.type)) return list;
  const last = list.length ? list[list.length - 1].sequence : 0;
  return e.sequence > last ? [...list, e] : list;
}

/** The types seen, in the order first seen, each with its count. */
export function eventTypes(list: readonly RunEventEnvelope[]): { type: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const e of list) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  return [...counts].map(([type, count]) => ({ type, count }));
}

/** The envelopes of the types chosen; every envelope when none is chosen. */
export const filterEnvelopes = (list: readonly RunEventEnvelope[], types: ReadonlySet<string>): readonly RunEventEnvelope[] =>
  types.size === 0 ? list : list.filter((e) => types.has(e.type));
