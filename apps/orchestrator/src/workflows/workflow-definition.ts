import type { EntityManager } from 'typeorm';
import type { JOBS, JobOf, NewRunEvent, RunSignature } from '@roundtable/contracts';
import type { RunEntity, StatementBatch } from '@roundtable/persistence';
import type { AnyCommand } from '../step-writer';
import type { DecisionRow } from '../sql/step-writes.sql';

/** The run's hash chain after a step's events (issue 26): set on the run row by the step's own UPDATE of it. */
export interface RunChainHead {
  /** The last event's hash; the row's head as it was when the step appends none. */
  head: string | null;
  /** The head's signature when the step ends the run under AUDIT_SIGNING_KEY; null keeps the row's. */
  signature: RunSignature | null;
}

/** The jobs of the orchestrator queue (libs/contracts' catalogue): each is one event for one run. */
export type OrchestratorJobName = keyof (typeof JOBS)['orchestrator'] & string;

/** What a job's handler is given: the run locked for the step, the job's payload, what was read with the lock. */
export interface JobInput<N extends OrchestratorJobName> {
  em: EntityManager;
  run: RunEntity;
  payload: JobOf<N>;
  /** agent.done: the call SETTLE_FINISHED_CALL settled with the lock (undefined: no such call); null for other jobs. */
  settled: Record<string, unknown> | undefined | null;
}

/** A job a workflow acts on: the event it stands for, and whether a finished run still takes it. */
export interface JobHandler<N extends OrchestratorJobName, E> {
  /** null: the job is moot for this run now (a reconciler halt after a step moved it): the step writes nothing. */
  toEvent(input: JobInput<N>): E | null | Promise<E | null>;
  /** A finished run still takes late call results (usage, reservations), a resume, an appeal; every other job is ignored. */
  afterTheEnd: boolean;
}

/** A job that means nothing to a workflow (the panel has no workspace): the step records it in the inbox and writes nothing else. */
export const IGNORED = 'ignored' as const;

/**
 * One handler per orchestrator job name, typed by its payload (house style 3: routing is a
 * table, not a switch). Complete at compile time; checkJobTables checks it again at boot, for a
 * table built or cast at run time.
 */
export type JobTable<E> = { [N in OrchestratorJobName]: JobHandler<N, E> | typeof IGNORED };

/** What every workflow's decide() answers and the one step writer (step-writer.ts) writes for any of them. */
export interface StepResultShape {
  state: { runId: string; status: string; counters: Record<string, number> };
  decisions: readonly DecisionRow[];
  commands: readonly AnyCommand[];
  events: NewRunEvent[];
}

/**
 * A workflow as the orchestrator runs it (the pure rules are libs/workflow's build and panel):
 * its job → event mapping, how its state is loaded from what the step read with the run lock,
 * its decide(), and the rows only it writes, queued in the step's one batch.
 */
export interface OrchestratedWorkflow<S, E, R extends StepResultShape, C> {
  jobs: JobTable<E>;
  /**
   * The state decide() takes: the snapshot on the locked run row and the usage read in the same
   * round trip (RUN_USAGE). May read more (a build run from before snapshots is rebuilt once).
   */
  loadState(run: RunEntity, usageRow: Record<string, unknown>, now: Date, em: EntityManager): S | Promise<S>;
  decide(state: S, event: E, ctx: C): R;
  /**
   * Queues the run row's UPDATE (event_seq moves past `events` in it, and the chain's head and
   * signature are set in it: commonRunColumns) and this workflow's own
   * domain rows; answers the UPDATE's index in the batch (its rowCount must be 1). May read first
   * (the build records a finished test run it is told about by the event).
   */
  write(batch: StatementBatch, input: { em: EntityManager; run: RunEntity; event: E; result: R; events: number; chain: RunChainHead; now: Date }): Promise<number>;
}
