import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { NewRunEvent, RUN_EVENT_PAYLOADS, RunEventEnvelope } from '@roundtable/contracts';
import { RunEventEntity } from '@roundtable/persistence';

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
  for (const e of events) RUN_EVENT_PAYLOADS[e.type].parse(e.payload);
  // TypeORM answers an UPDATE … RETURNING with [rows, rowCount], not the rows alone.
  const [rows] = (await em.query(`UPDATE runs SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq`, [
    runId,
    events.length,
  ])) as [{ event_seq: number }[], number];
  if (!rows.length) throw new Error(`run ${runId} does not exist`);
  const last = Number(rows[0].event_seq);
  const first = last - events.length + 1;
  const now = new Date();
  const entities = events.map((e, i) =>
    em.create(RunEventEntity, { runId, sequence: first + i, type: e.type, payload: e.payload as Record<string, unknown>, createdAt: now }),
  );
  await em.insert(RunEventEntity, entities as unknown as QueryDeepPartialEntity<RunEventEntity>[]);
  return entities.map(toEnvelope);
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

