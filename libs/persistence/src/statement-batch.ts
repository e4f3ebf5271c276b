import type { EntityManager, QueryRunner } from 'typeorm';
import { statementName, type PreparedResult } from './prepared-query';

interface PgResult {
  rows: unknown[];
  rowCount: number | null;
}

interface PgClient {
  query(text: string): Promise<PgResult | PgResult[]>;
}

/** Statement names this process has PREPAREd, per connection (prepared statements live as long as the session). */
const preparedOn = new WeakMap<object, Set<string>>();

/**
 * Several statements of one transaction sent in one round trip. node-postgres waits for each
 * statement's answer before it sends the next one, so a step of ten statements paid ten
 * round trips, and on a busy machine each cost about a millisecond. A batch is one
 * simple-protocol message: `EXECUTE name(args); EXECUTE …`, with each statement PREPAREd once
 * per connection (so planning is paid once, as with preparedQuery) and its parameters sent as
 * string constants (stringConstant), which Postgres coerces to the types it inferred when preparing.
 *
 * Statements run in order and each sees the ones before it; the first error stops the rest
 * and rejects flush() (inside a transaction, the transaction is then aborted). Only for
 * statements whose parameters are scalars or JSON text; only on a query runner's connection.
 */
export class StatementBatch {
  private readonly items: { sql: string; params: unknown[] }[] = [];

  constructor(private readonly runner: QueryRunner) {}

  static of(em: EntityManager): StatementBatch {
    if (!em.queryRunner) throw new Error('a statement batch needs an entity manager bound to a query runner');
    return new StatementBatch(em.queryRunner);
  }

  /** Queues a statement; its result is at this index of what flush() answers. */
  add(sql: string, params: unknown[]): number {
    this.items.push({ sql, params });
    return this.items.length - 1;
  }

  /**
   * Sends the queued statements, between `before` and `after` (plain SQL without parameters,
   * e.g. BEGIN and COMMIT), in one round trip, and empties the batch. Answers one result per
   * queued statement, in order.
   */
  async flush(wrap: { before?: string; after?: string } = {}): Promise<PreparedResult<Record<string, unknown>>[]> {
    const items = this.items.splice(0);
    const client = (await this.runner.connect()) as PgClient;
    let prepared = preparedOn.get(client);
    if (!prepared) preparedOn.set(client, (prepared = new Set()));
    const parts: string[] = [];
    if (wrap.before) parts.push(wrap.before);
    for (const { sql, params } of items) {
      const name = statementName(sql, 'rtb_');
      if (!prepared.has(name)) {
        // Once per connection and statement; PREPARE is not undone by a rollback, so it is
        // recorded as soon as it succeeds.
        await client.query(`PREPARE ${name} AS ${sql}`);
        prepared.add(name);
      }
      parts.push(params.length ? `EXECUTE ${name}(${params.map(literal).join(', ')})` : `EXECUTE ${name}`);
    }
    if (wrap.after) parts.push(wrap.after);
    if (!parts.length) return [];
    const raw = await client.query(parts.join(';\n'));
    const results = Array.isArray(raw) ? raw : [raw];
    const first = wrap.before ? 1 : 0;
    return items.map((_, i) => {
      const r = results[first + i];
      return { rows: r.rows as Record<string, unknown>[], rowCount: r.rowCount ?? 0 };
    });
  }
}

/**
 * A string as a quoted SQL literal: the very text node-postgres' escapeLiteral answers (quotes
 * doubled; with a backslash, backslashes doubled too and the ` E'…'` form), made by two native
 * replaces. escapeLiteral appends one character at a time, which on a step's JSON parameters (the
 * prompt, the run's snapshot: tens of kilobytes) was the orchestrator's largest own CPU item and
 * left a string of that many pieces for the collector.
 */
export function quoteLiteral(s: string): string {
  const quoted = `'${s.replaceAll("'", "''")}'`;
  return s.includes('\\') ? ` E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}

/** The dollar-quote tag of a batch's string literals. */
const TAG = '$rt$';

/**
 * A string as a SQL string constant: dollar-quoted (`$rt$…$rt$`: Postgres takes what is between
 * the tags as it is, no character escaped, so the text is sent as it is and neither side scans it
 * for quotes), or, when the text would end the quote early (it holds the tag, or ends with `$rt`,
 * which the closing tag would complete), quoteLiteral's form. Both are the same unknown-typed
 * string constant to Postgres.
 */
export function stringConstant(s: string): string {
  return s.includes(TAG) || s.endsWith('$rt') ? quoteLiteral(s) : `${TAG}${s}${TAG}`;
}

/** A parameter as a quoted literal (unknown-typed, so Postgres coerces it to the prepared parameter's type). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof Date) return quoteLiteral(v.toISOString());
  switch (typeof v) {
    case 'string':
      return stringConstant(v);
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`a batched statement cannot take the number ${v}`);
      return `'${v}'`;
    case 'bigint':
      return `'${v}'`;
    case 'boolean':
      return v ? `'true'` : `'false'`;
    default:
      // Arrays too: every array parameter of the batched statements is JSON (jsonb), never a Postgres array.
      return stringConstant(JSON.stringify(v));
  }
}
