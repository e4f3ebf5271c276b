import type { DataSource, EntityManager } from 'typeorm';

/** One logged event with its envelope already serialised. */
export interface RunEventJson {
  sequence: number;
  type: string;
  /** The envelope as JSON text: the same fields and values as toEnvelope(), serialised by Postgres. */
  json: string;
}

/**
 * Events after a sequence, oldest first, each envelope serialised by Postgres. For a stream
 * that only forwards them (SSE replay): no payload is parsed into objects and serialised again,
 * which is most of the cost of replaying a long log. `created_at` has toISOString()'s form.
 */
export async function readRunEventsJson(ds: DataSource | EntityManager, runId: string, after = 0, limit = 10_000): Promise<RunEventJson[]> {
  const rows = (await ds.query(
    // The JSON is built after the LIMIT: when the planner picks a bitmap scan and a sort (a run's
    // rows not yet analyzed), a projection next to the scan would serialise every later event too.
    `SELECT sequence, type,
            json_build_object(
              'type', type,
              'run_id', run_id,
              'sequence', sequence,
              'payload', payload,
              'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
            )::text AS json
       FROM (SELECT run_id, sequence, type, payload, created_at
               FROM run_events
              WHERE run_id = $1 AND sequence > $2
              ORDER BY sequence
              LIMIT $3) page
      ORDER BY sequence`,
    [runId, after, limit],
  )) as { sequence: number; type: string; json: string }[];
  return rows.map((r) => ({ sequence: Number(r.sequence), type: r.type, json: r.json }));
}
