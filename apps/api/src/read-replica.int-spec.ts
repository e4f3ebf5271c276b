import type { NewRunEvent } from '@roundtable/contracts';
import { appendRunEvents } from '@roundtable/events';
import { createTestDatabase } from '@roundtable/persistence';
import { openSse, sseEvents } from '@roundtable/testing';
import { Client } from 'pg';
import { type ApiHarness, demoConfig, startApi } from './api-test-harness';
import { type PgReplicaPair, startPgReplicaPair } from './pg-replica-pair.fixture';
import { ReadDb } from './read-db';

/**
 * DATABASE_READ_URL against a real streaming replica (issue 27): a Postgres primary and a
 * `pg_basebackup -R` replica of it made here, the api on both. Replay on the replica is paused to
 * make it lag on purpose, which shows where each read goes: a list answers from the replica (and
 * misses what the primary has since), while a run just submitted, its team door, its calls and its
 * event replay are still answered from the primary.
 */
jest.setTimeout(60_000);

let pair: PgReplicaPair | undefined;
let h: ApiHarness;
let replicaDbUrl: string;

beforeAll(async () => {
  pair = await startPgReplicaPair();
  const db = await createTestDatabase({ adminUrl: pair.primaryUrl, migrate: true });
  const url = new URL(pair.replicaUrl);
  url.pathname = `/${db.name}`;
  replicaDbUrl = url.toString();
  // The api checks the replica is migrated at start: it must have replayed the migrations first.
  await pair.caughtUp();
  h = await startApi({ DATABASE_URL: db.url, DATABASE_READ_URL: replicaDbUrl }, { db });
});

afterAll(async () => {
  try {
    await pair?.resumeReplay().catch(() => undefined);
    await h?.close();
  } finally {
    await pair?.stop();
  }
});

/** One query on the replica's copy of the test database, outside the api. */
async function onReplica<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: replicaDbUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

async function submit(): Promise<string> {
  const res = await fetch(`${h.base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demoConfig()) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function listedIds(): Promise<string[]> {
  const res = await fetch(`${h.base}/v1/runs`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }[]).map((r) => r.id);
}

const note = (i: number): NewRunEvent => ({ type: 'open_question_raised', payload: { role: 'critic', question: `q${i}` } });
const completed: NewRunEvent = { type: 'run_completed', payload: { status: 'done', verdict: 'ACCEPT', confidence: 0.8 } };

describe('DATABASE_READ_URL: a streaming read replica', () => {
  it('connects a read-only pool to the replica as roundtable-api-read', async () => {
    const reads = h.app.get(ReadDb);
    expect(reads.replica).not.toBeNull();
    const [{ application_name }] = await reads.lagging.query(`SELECT current_setting('application_name') AS application_name`);
    expect(application_name).toBe('roundtable-api-read');
    const [{ in_recovery }] = await reads.lagging.query('SELECT pg_is_in_recovery() AS in_recovery');
    expect(in_recovery).toBe(true);
    await expect(reads.lagging.query('CREATE TABLE replica_write_probe (id int)')).rejects.toThrow(/read-only/);
  });

  it('serves lists from the replica, and a just-submitted run from the primary while the replica lags', async () => {
    const before = await submit();
    await pair!.caughtUp();
    expect(await listedIds()).toContain(before);

    await pair!.pauseReplay();
    let fresh: string;
    try {
      // A write while the replica is held: it goes to the primary, which has the row; the replica does not.
      fresh = await submit();
      expect(await h.ds.query('SELECT id FROM runs WHERE id = $1', [fresh])).toHaveLength(1);
      expect(await onReplica('SELECT id FROM runs WHERE id = $1', [fresh])).toHaveLength(0);

      // The list is the replica's: it misses the run the primary has. That is the proof it was read there.
      const listed = await listedIds();
      expect(listed).toContain(before);
      expect(listed).not.toContain(fresh);

      // GET right after POST: through the team door (the primary) and, on the replica's miss, from the primary.
      const got = await fetch(`${h.base}/v1/runs/${fresh}`);
      expect(got.status).toBe(200);
      expect(((await got.json()) as { id: string }).id).toBe(fresh);
      const calls = await fetch(`${h.base}/v1/runs/${fresh}/calls`);
      expect(calls.status).toBe(200);
      expect(await calls.json()).toEqual([]);
      const records = await fetch(`${h.base}/v1/runs/${fresh}/records`);
      expect(records.status).toBe(200);
      expect((await fetch(`${h.base}/v1/runs/run_nowhere`)).status).toBe(404);
    } finally {
      await pair!.resumeReplay();
    }
    await pair!.caughtUp();
    expect(await listedIds()).toContain(fresh);
  });

  it('replays every event of a run, the ones the replica has not replayed yet from the primary', async () => {
    const runId = await submit();
    await h.ds.transaction((em) => appendRunEvents(em, runId, [2, 3, 4].map(note)));
    await pair!.caughtUp();
    await pair!.pauseReplay();
    try {
      await h.ds.transaction((em) => appendRunEvents(em, runId, [5, 6].map(note)));
      await h.ds.transaction((em) => appendRunEvents(em, runId, [completed]));
      const [{ n }] = await onReplica<{ n: number }>('SELECT count(*)::int AS n FROM run_events WHERE run_id = $1', [runId]);
      expect(n).toBe(4);

      const conn = await openSse(`${h.base}/v1/runs/${runId}/events`);
      expect(conn.status).toBe(200);
      await conn.ended;
      const events = sseEvents(conn.frames);
      expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(events[events.length - 1].type).toBe('run_completed');

      // Resuming after an event only the primary has (as a client sent it live would): not a 400, the rest.
      const resumed = await openSse(`${h.base}/v1/runs/${runId}/events`, { headers: { 'last-event-id': '5' } });
      expect(resumed.status).toBe(200);
      await resumed.ended;
      expect(sseEvents(resumed.frames).map((e) => e.sequence)).toEqual([6, 7]);
    } finally {
      await pair!.resumeReplay();
    }
  });
});

describe('/readyz with a read replica', () => {
  // Last in this file: it stops the replica.
  it('checks the replica beside the primary and Redis, and answers 503 naming it once it is gone', async () => {
    const up = await fetch(`${h.base}/readyz`);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok', postgres_replica: 'ok' } });

    await pair!.stopReplica();
    const down = await fetch(`${h.base}/readyz`);
    expect(down.status).toBe(503);
    expect(JSON.stringify(await down.json())).toContain('postgres_replica');
  });
});
