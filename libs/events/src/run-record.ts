import type { DataSource, EntityManager } from 'typeorm';
import { RunSignature, verifyRecord, type RecordedCall, type RecordedEvent, type RecordVerdict, type RunRecord, type VerifyOptions } from '@roundtable/contracts';

/**
 * A run's record as `verify` reads it: the run row's head hash, event_seq and signature, every
 * event with its hash, every call with the fields its record hash covers. Null: no such run.
 * Three reads, not a transaction: call it inside one (REPEATABLE READ) for a run still moving.
 */
export async function readRunRecord(db: DataSource | EntityManager, runId: string): Promise<RunRecord | null> {
  const runs = (await db.query(`SELECT head_hash, event_seq, signature FROM runs WHERE id = $1`, [runId])) as {
    head_hash: string | null;
    event_seq: number;
    signature: unknown;
  }[];
  if (!runs.length) return null;
  const events = (await db.query(
    `SELECT run_id, sequence, type, payload, created_at, hash FROM run_events WHERE run_id = $1 ORDER BY sequence`,
    [runId],
  )) as (Omit<RecordedEvent, 'created_at'> & { created_at: Date })[];
  const calls = (await db.query(
    `SELECT id, role, stage, label, provider, model, status, messages, response_text, parsed, valid, error, error_code,
            input_tokens, output_tokens, cost_usd::text AS cost_usd
       FROM agent_calls WHERE run_id = $1 ORDER BY seq, id`,
    [runId],
  )) as RecordedCall[];
  const signature = runs[0].signature === null ? null : RunSignature.safeParse(runs[0].signature);
  return {
    run_id: runId,
    head_hash: runs[0].head_hash,
    event_seq: Number(runs[0].event_seq),
    // A signature that is not one (edited into another shape) is checked as one that does not verify.
    signature: signature === null ? null : signature.success ? signature.data : { sequence: 1, hash: '', signature: '', public_key: '', algorithm: 'ed25519' },
    events: events.map((e) => ({ ...e, sequence: Number(e.sequence), created_at: new Date(e.created_at).toISOString() })),
    calls,
  };
}

/**
 * Verifies a run's record from the rows: the entry point for the api's GET /v1/runs/:id/verify
 * and for anything else that holds a connection (the demo, the chaos test). Null: no such run.
 * Given a DataSource it reads in one REPEATABLE READ transaction, so a step committing meanwhile
 * is all in or all out; given an EntityManager, in the caller's.
 */
export async function verifyRunRecord(db: DataSource | EntityManager, runId: string, opts: VerifyOptions = {}): Promise<RecordVerdict | null> {
  const record = await readRunRecordConsistently(db, runId);
  return record === null ? null : verifyRecord(record, opts);
}

/** readRunRecord, in a REPEATABLE READ transaction of its own when given a DataSource. */
export function readRunRecordConsistently(db: DataSource | EntityManager, runId: string): Promise<RunRecord | null> {
  return 'manager' in db ? db.transaction('REPEATABLE READ', (em) => readRunRecord(em, runId)) : readRunRecord(db, runId);
}
