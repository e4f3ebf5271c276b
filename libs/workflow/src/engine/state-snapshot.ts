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

/**
 * The run-row fields a workflow kept wholly in its snapshot (the panel, the experiment) is rebuilt
 * from (RunEntity satisfies it): its own columns, and the snapshot.
 */
export interface SnapshotRunRow {
  id: string;
  status: string;
  stage: string;
  haltReason: string | null;
  config: Record<string, unknown>;
  callSeq: number;
  /** Checked against the snapshot's own (unversioned); absent: not checked. */
  eventSeq?: number;
  workflowState: Record<string, unknown> | null;
}

/** What the row's own columns hold, and the usage rebuilt on every step: never in the snapshot. */
type RowColumns = 'runId' | 'status' | 'stage' | 'haltReason' | 'config' | 'usage';

/** A state as its snapshot keeps it: everything but the row's columns and the usage. */
export function toSnapshot<S extends Record<RowColumns, unknown>>(state: S): Omit<S, RowColumns> {
  const { runId: _runId, status: _status, stage: _stage, haltReason: _haltReason, config: _config, usage: _usage, ...stored } = state;
  return stored;
}

/**
 * The state a snapshot workflow's decide() takes: the stored part (or, before the first step, the
 * initial state's), with the row's columns, the usage read with the lock, and the call counter
 * from runs.call_seq (which numbers the agent_calls rows).
 */
export function stateFromSnapshot<S extends { counters: Record<string, number> } & Record<RowColumns, unknown>>(
  run: SnapshotRunRow,
  usage: S['usage'],
  initial: () => S,
): S {
  const snapshot = run.workflowState as unknown as Omit<S, RowColumns> | null;
  const stored = snapshot ? unversioned<Omit<S, RowColumns>>(run.id, snapshot, run.eventSeq ?? Number.MAX_SAFE_INTEGER) : toSnapshot(initial());
  return {
    ...stored,
    runId: run.id,
    status: run.status,
    stage: run.stage,
    haltReason: run.haltReason,
    config: run.config,
    usage,
    counters: { ...(stored as unknown as S).counters, call: run.callSeq },
  } as unknown as S;
}
