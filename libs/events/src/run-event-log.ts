import type { DataSource, EntityManager } from 'typeorm';
import { chainHashes, NewRunEvent, RUN_EVENT_PAYLOADS, RunEventEnvelope, type RunSignature } from '@roundtable/contracts';
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
 * log stays gap-free and duplicate-free; the same UPDATE answers the run's head hash, which the
 * events chain from. Payloads are validated against the catalogue: an event the catalogue does
 * not describe is a bug, caught before it reaches a client.
 */
export async function appendRunEvents(em: EntityManager, runId: string, events: NewRunEvent[]): Promise<RunEventEnvelope[]> {
  if (events.length === 0) return [];
  checkRunEvents(events);
  // TypeORM answers an UPDATE … RETURNING with [rows, rowCount], not the rows alone.
  const [rows] = (await em.query(`UPDATE runs SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq, head_hash`, [
    runId,
    events.length,
  ])) as [{ event_seq: number; head_hash: string | null }[], number];
  if (!rows.length) throw new Error(`run ${runId} does not exist`);
  return insertRunEvents(em, runId, Number(rows[0].event_seq) - events.length, rows[0].head_hash, events);
}

/** Throws on an event the catalogue does not describe (a bug, caught before it reaches a client). */
export function checkRunEvents(events: NewRunEvent[]): void {
  for (const e of events) RUN_EVENT_PAYLOADS[e.type].parse(e.payload);
}

/**
 * Inserts events numbered after `lastSequence`, chained from `prevHash` (the run's head hash), in
 * one multi-row INSERT that moves runs.head_hash too. For a writer that already holds the run
 * row FOR UPDATE and moves runs.event_seq past these events in its own UPDATE of that row (the
 * orchestrator step): the lock is what keeps the log gap-free and the chain linear, and the step
 * saves the separate event_seq round trip. Call checkRunEvents first.
 */
export async function insertRunEvents(
  em: EntityManager,
  runId: string,
  lastSequence: number,
  prevHash: string | null,
  events: NewRunEvent[],
): Promise<RunEventEnvelope[]> {
  if (events.length === 0) return [];
  const insert = runEventsInsert(runId, lastSequence, prevHash, events);
  await preparedQuery(em, insert.sql, insert.params);
  return insert.envelopes;
}

/** What runEventsInsert answers: the statement, the envelopes it writes and the run's new head hash. */
export interface RunEventsInsert {
  sql: string;
  params: unknown[];
  envelopes: RunEventEnvelope[];
  /** The last event's hash (the run's head after the statement); prevHash when there are no events. */
  head: string | null;
  /** The head's signature when `sign` was given and there were events; else null (the run's stays as it is). */
  signature: RunSignature | null;
}

/**
 * insertRunEvents as a statement to send (e.g. in a StatementBatch). Each event's hash chains
 * from the one before (eventHash: sha256 of the previous hash and the canonical envelope); the
 * run's head_hash moves to the last in the same statement, and `sign` (the operator's key, at a
 * terminal step) puts the signature of that head on the run row in it too: the chain costs no
 * round trip. The time is the writer's clock to the millisecond, which is what the hash covers.
 */
export function runEventsInsert(
  runId: string,
  lastSequence: number,
  prevHash: string | null,
  events: NewRunEvent[],
  sign?: (sequence: number, hash: string) => RunSignature,
  /** false: the caller sets head_hash and signature itself (the orchestrator step, in its own UPDATE of the run, saving a second row version). */
  moveHead = true,
): RunEventsInsert {
  const now = new Date();
  const envelopes: RunEventEnvelope[] = events.map((e, i) => ({
    type: e.type,
    run_id: runId,
    sequence: lastSequence + 1 + i,
    payload: e.payload as Record<string, unknown>,
    created_at: now.toISOString(),
  }));
  const hashes = chainHashes(prevHash, envelopes);
  const head = hashes.length ? hashes[hashes.length - 1] : prevHash;
  const signature = sign && head !== null && envelopes.length ? sign(lastSequence + envelopes.length, head) : null;
  // One statement for any number of events; the rows travel as one JSON array.
  const insert = `INSERT INTO run_events (run_id, sequence, type, payload, created_at, hash)
     SELECT $1, e.sequence, e.type, e.payload, $3, e.hash FROM jsonb_to_recordset($2::jsonb) AS e(sequence integer, type text, payload jsonb, hash text)`;
  const rows = JSON.stringify(envelopes.map((e, i) => ({ sequence: e.sequence, type: e.type, payload: e.payload, hash: hashes[i] })));
  if (!moveHead) return { sql: insert, params: [runId, rows, now], envelopes, head, signature };
  return {
    sql: `WITH head AS (UPDATE runs SET head_hash = $4, signature = coalesce($5::jsonb, signature) WHERE id = $1)\n     ${insert}`,
    params: [runId, rows, now, head, signature ? JSON.stringify(signature) : null],
    envelopes,
    head,
    signature,
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

