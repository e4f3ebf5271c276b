import type { DataSource, EntityManager } from 'typeorm';
import { preparedQuery, type PreparedResult } from './prepared-query';
import type { StatementBatch } from './statement-batch';

/**
 * A statement as a typed constant (house style 11): its text, how its parameters are built,
 * and the row it answers. `Row` is a type only (never set at run time): what `runStatement`
 * answers. The orchestrator's hot-path statements are these (apps/orchestrator/src/sql/), as
 * are the ones services share here (RECORD_CALL_OUTCOME); each has an integration test
 * against the migrated schema.
 */
export interface Statement<A extends unknown[], R> {
  readonly text: string;
  readonly params: (...args: A) => unknown[];
  readonly Row?: R;
}

/** The row type of a statement. */
export type RowOf<S> = S extends { readonly Row?: infer R } ? R : never;

/** `statement<Row>()({ text, params })`: the row type given, the parameters inferred from params(). */
export function statement<R>() {
  return <A extends unknown[]>(s: { text: string; params: (...args: A) => unknown[] }): Statement<A, R> => s;
}

/** Runs a statement as a prepared statement (preparedQuery), in the caller's transaction if it has one. */
export function runStatement<A extends unknown[], R>(on: EntityManager | DataSource, s: Statement<A, R>, ...args: A): Promise<PreparedResult<R>> {
  return preparedQuery<R>(on, s.text, s.params(...args));
}

/** Queues a statement in a batch; its result is at the index answered. */
export function addStatement<A extends unknown[], R>(batch: StatementBatch, s: Statement<A, R>, ...args: A): number {
  return batch.add(s.text, s.params(...args));
}
