/**
 * A run's workflow state between steps is a snapshot on the run row (runs.workflow_state):
 * the workflow's state less what the row's own columns hold, written in the step's
 * transaction and read with the run lock in the same statement, so a step reads and writes
 * one row whatever the run's length. The snapshot says which event it reflects: the
 * `event_seq` its step left on the row. Other writers append events too (the reconciler, the
 * api's event log) without a step, so the row's event_seq may be ahead of the snapshot's,
 * never behind: a snapshot from a later event than the row has was not written with it.
 */
export interface Versioned {
  /** runs.event_seq as the step that wrote this snapshot left it. */
  event_seq: number;
}

export function versioned<T extends object>(stored: T, eventSeq: number): T & Versioned {
  return { ...stored, event_seq: eventSeq };
}

/** The stored state without its version, checked against the row it was read with. */
export function unversioned<T extends object>(runId: string, stored: T & Partial<Versioned>, rowEventSeq: number): T {
  const { event_seq: at, ...state } = stored;
  if (at !== undefined && at > rowEventSeq) {
    throw new Error(
      `run ${runId}: its workflow_state reflects event ${at} but the row's event_seq is ${rowEventSeq}; the snapshot was not written with the row (a write outside the step writer?)`,
    );
  }
  return state as unknown as T;
}
