import { createHash } from 'node:crypto';
import { canonicalJson } from '../experiment/canonical-json';

/**
 * The hash chain of a run's record (issue 26): each event's hash covers the hash before it and
 * its own envelope, and each agent call's record hash covers what was recorded of it. sha256, hex.
 */

/** What of an event the chain covers: its envelope, less nothing. */
export interface HashedEnvelope {
  run_id: string;
  sequence: number;
  type: string;
  payload: Record<string, unknown>;
  /** ISO 8601 with milliseconds, as Date.toISOString() writes it (the writers store a millisecond time). */
  created_at: string;
}

/** What of an agent call its record hash covers: the prompt, the reply (text, parsed, validity, error), the usage and the cost, as its row holds them. */
export interface CallRecordFields {
  id: string;
  status: string;
  messages: unknown;
  response_text: string | null;
  parsed: unknown;
  valid: boolean | null;
  error: string | null;
  error_code: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  /** agent_calls.cost_usd as Postgres prints the numeric (`cost_usd::text`), so no float rounding enters the hash. */
  cost_usd: string | null;
}

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** sha256(prev ‖ canonical(envelope)); the first event of a chain has no prev (null). */
export function eventHash(prevHash: string | null, e: HashedEnvelope): string {
  const envelope = { run_id: e.run_id, sequence: e.sequence, type: e.type, payload: e.payload, created_at: e.created_at };
  return sha256Hex((prevHash ?? '') + canonicalJson(envelope));
}

/** The hashes of events appended after `prevHash`, in order; the last is the run's new head. */
export function chainHashes(prevHash: string | null, events: readonly HashedEnvelope[]): string[] {
  const out: string[] = [];
  let prev = prevHash;
  for (const e of events) out.push((prev = eventHash(prev, e)));
  return out;
}

/** The call's record hash: sha256 of the canonical form of its recorded fields. */
export function callRecordHash(c: CallRecordFields): string {
  return sha256Hex(
    canonicalJson({
      id: c.id,
      status: c.status,
      messages: c.messages ?? null,
      response_text: c.response_text ?? null,
      parsed: c.parsed ?? null,
      valid: c.valid ?? null,
      error: c.error ?? null,
      error_code: c.error_code ?? null,
      input_tokens: c.input_tokens ?? null,
      output_tokens: c.output_tokens ?? null,
      cost_usd: c.cost_usd ?? null,
    }),
  );
}

/** The event types that record a call's outcome, whose payload carries its record_hash. */
export const CALL_OUTCOME_EVENT_TYPES: readonly string[] = ['agent_call_completed', 'agent_call_failed'];
