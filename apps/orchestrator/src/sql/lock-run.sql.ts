import type { EntityManager } from 'typeorm';
import { RunEntity } from '@roundtable/persistence';
import { statement, type Statement } from '@roundtable/persistence';

/** The locked run row, its columns under the entity's property names, and whether the event is new. */
export type LockedRunRow = Partial<RunEntity> & { __fresh: boolean };

let lockRunStatement: Statement<[runId: string, eventKey: string], LockedRunRow> | null = null;

/**
 * Step 1 (sent with BEGIN): locks the run row (FOR UPDATE, which serialises the run's steps)
 * and records the event in the inbox (its key: inboxKey, libs/contracts); `__fresh` is false
 * when it was already applied. The CTE that inserts reads the locked row, so the lock is taken
 * first, as with two statements. No row when the run does not exist.
 *
 * The select list is `"column" AS "property"` for every column of the run entity, so a raw row
 * maps onto it; it is read from the entity's metadata once, hence a function of the manager.
 */
export function lockRun(em: EntityManager): Statement<[runId: string, eventKey: string], LockedRunRow> {
  if (lockRunStatement) return lockRunStatement;
  const columns = em.connection
    .getMetadata(RunEntity)
    .columns.map((c) => `"${c.databaseName}" AS "${c.propertyName}"`)
    .join(', ');
  lockRunStatement = statement<LockedRunRow>()({
    text: `WITH run AS (SELECT ${columns} FROM runs WHERE id = $1 FOR UPDATE),
          inbox AS (INSERT INTO applied_events (run_id, event_key) SELECT "id", $2 FROM run ON CONFLICT DO NOTHING RETURNING 1)
     SELECT run.*, EXISTS (SELECT 1 FROM inbox) AS "__fresh" FROM run`,
    params: (runId: string, eventKey: string): unknown[] => [runId, eventKey],
  });
  return lockRunStatement;
}
