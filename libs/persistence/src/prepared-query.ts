import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';

/** What node-postgres answers: the rows, and how many rows the command touched. */
export interface PreparedResult<T> {
  rows: T[];
  rowCount: number;
}

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** Names by prefix, then by statement text: the texts are the same string objects call after call, whose hash V8 keeps, so a lookup does not rehash the text (a `${prefix}\0${sql}` key was a new string to hash every time). */
const names = new Map<string, Map<string, string>>();

/**
 * A stable name per statement text: the same text always gets the same prepared statement.
 * `prefix` keeps apart statements prepared by different mechanisms on one connection
 * (node-postgres's named statements here, SQL PREPARE in StatementBatch), which share the
 * session's namespace but each track only their own.
 */
export function statementName(sql: string, prefix = 'rt_'): string {
  let byText = names.get(prefix);
  if (!byText) names.set(prefix, (byText = new Map()));
  let name = byText.get(sql);
  if (!name) {
    name = `${prefix}${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    byText.set(sql, name);
  }
  return name;
}

/**
 * Runs a statement as a named prepared statement (node-postgres parses it once per
 * connection and then only binds and executes). For the statements of the orchestrator step
 * and the provider-worker's call, which run on every agent call: on a small machine planning
 * them each time cost as much Postgres CPU as executing them (the step's state query alone
 * took ~5 ms to plan); a prepared statement switches to a cached generic plan after a few
 * executions. Only for fixed statement texts (parameters as $n): each distinct text becomes
 * one prepared statement on every pooled connection.
 *
 * Inside a transaction (an EntityManager with a query runner) it uses that transaction's
 * connection; otherwise any connection of the data source's pool.
 */
export async function preparedQuery<T = Record<string, unknown>>(
  on: EntityManager | DataSource,
  sql: string,
  params: unknown[],
): Promise<PreparedResult<T>> {
  const config = { name: statementName(sql), text: sql, values: params };
  const runner = (on as EntityManager).queryRunner;
  const client: PgClient =
    runner && !runner.isReleased
      ? ((await runner.connect()) as PgClient)
      : // No transaction: the pool checks a connection out for this one statement.
        ((('driver' in on ? on.driver : on.connection.driver) as unknown as { master: PgClient }).master);
  const res = await client.query(config);
  return { rows: res.rows as T[], rowCount: res.rowCount ?? 0 };
}
