import type { DataSource, EntityManager } from 'typeorm';
import { NewRunEvent, RUN_EVENT_PAYLOADS, RunEventEnvelope } from '@roundtable/contracts';
import { preparedQuery, RunEventEntity } from '@roundtable/persistence';

export function toEnvelope(e: RunEventEntity): RunEventEnvelope {
  return {
    type: e.type,
    run_id: e.runId,
    sequence: e.sequence,
    payload: e.payload,
    created_at: e.createdAt.toISOString(),
  };
}

/**
 * Appends events to a run's log inside the caller's transaction. The sequence comes from
 * runs.event_seq, bumped in the same UPDATE, so two writers serialise on the run row and the
 * log stays gap-free and duplicate-free. Payloads are validated against the catalogue: an
 * event the catalogue does not describe is a bug, caught before it reaches a client.
 */
export async function appendRunEvents(em: EntityManager, runId: string, events: NewRunEvent[]): Promise<RunEventEnvelope[]> {
  if (events.length === 0) return [];
  checkRunEvents(events);
  // TypeORM answers an UPDATE … RETURNING with [rows, rowCount], not the rows alone.
  const [rows] = (await em.query(`UPDATE runs SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq`, [
    runId,
    events.length,
  ])) as [{ event_seq: number }[], number];
  if (!rows.length) throw new Error(`run ${runId} does not exist`);
  return insertRunEvents(em, runId, Number(rows[0].event_seq) - events.length, events);
}

/** Throws on an event the catalogue does not describe (a bug, caught before it reaches a client). */
export function checkRunEvents(events: NewRunEvent[]): void {
  for (const e of events) RUN_EVENT_PAYLOADS[e.type].parse(e.payload);
}

/**
 * Inserts events numbered after `lastSequence` in one multi-row INSERT. For a writer that
 * already holds the run row FOR UPDATE and moves runs.event_seq past these events in its own
 * UPDATE of that row (the orchestrator step): the lock is what keeps the log gap-free, and
 * the step saves the separate event_seq round trip. Call checkRunEvents first.
 */
export async function insertRunEvents(
  em: EntityManager,
  runId: string,
  lastSequence: number,
  events: NewRunEvent[],
): Promise<RunEventEnvelope[]> {
  if (events.length === 0) return [];
  const insert = runEventsInsert(runId, lastSequence, events);
  await preparedQuery(em, insert.sql, insert.params);
  return insert.envelopes;
}

/** insertRunEvents as a statement to send (e.g. in a StatementBatch), with the envelopes it writes. */
export function runEventsInsert(
  runId: string,
  lastSequence: number,
  events: NewRunEvent[],
): { sql: string; params: unknown[]; envelopes: RunEventEnvelope[] } {
  const now = new Date();
  const envelopes: RunEventEnvelope[] = events.map((e, i) => ({
    type: e.type,
    run_id: runId,
    sequence: lastSequence + 1 + i,
    payload: e.payload as Record<string, unknown>,
    created_at: now.toISOString(),
  }));
  // One statement for any number of events; the rows travel as one JSON array.
  return {
    sql: `INSERT INTO run_events (run_id, sequence, type, payload, created_at)
     SELECT $1, e.sequence, e.type, e.payload, $3 FROM jsonb_to_recordset($2::jsonb) AS e(sequence integer, type text, payload jsonb)`,
    params: [runId, JSON.stringify(envelopes.map((e) => ({ sequence: e.sequence, type: e.type, payload: e.payload }))), now],
    envelopes,
  };
}

/** Events after a sequence, oldest first: the replay half of the SSE stream and of audits. */
export async function readRunEvents(ds: DataSource | EntityManager, runId: string, after = 0, limit = 10_000): Promise<RunEventEnvelope[]> {
  const rows = await ds
    .getRepository(RunEventEntity)
    .createQueryBuilder('e')
    .where('e.run_id = :runId AND e.sequence > :after', { runId, after })
    .orderBy('e.sequence', 'ASC')
    .limit(limit)
    .getMany();
  return rows.map(toEnvelope);
}

