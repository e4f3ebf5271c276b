import { CALL_OUTCOME_EVENT_TYPES, callRecordHash, eventHash, sha256Hex } from './record-hash';
import { samePublicKey, signatureVerifies } from './record-signature';
import { canonicalJson } from '../experiment/canonical-json';
import { RunExport, type RecordArtifact, type RecordedEvent, type RecordVerdict, type RunRecord } from './run-record.schema';

type Problem = Extract<RecordVerdict, { intact: false }>;

export interface VerifyOptions {
  /** The operator's public key (SPKI PEM) the reader trusts: a signature must be made with it. */
  publicKey?: string;
  /**
   * With a trusted key, must the run carry a signature? Default true (an export checked offline:
   * an edit that stripped the signature must fail). The api passes false: a run still running, or
   * one finished before the operator signed, has none, and the verdict says `absent`.
   */
  requireSignature?: boolean;
}

/**
 * Recomputes a run's record and answers "intact" or the FIRST thing that does not match, in log
 * order: an event whose hash does not follow (changed, or reordered when its hash is the one it
 * had at another position), a gap in the sequence or a head hash past the last event (missing),
 * a call whose recorded fields no longer hash to what its recording event carries (changed), and
 * last the signature (a chain edited and recomputed end to end still fails it). Pure: the api
 * runs it on the rows, `roundtable verify --file` on an export, offline.
 */
export function verifyRecord(record: RunRecord, opts: VerifyOptions = {}): RecordVerdict {
  const problem = (kind: Problem['kind'], at: Problem['at'], detail: string): Problem => ({ intact: false, kind, at, detail });
  const events = [...record.events].sort((a, b) => a.sequence - b.sequence);
  const calls = new Map(record.calls.map((c) => [c.id, c]));
  const checkedCalls = new Set<string>();

  let prev: string | null = null;
  let unchained = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const expected = i + 1;
    if (e.sequence !== expected) {
      return problem('missing', { sequence: expected }, `event ${expected} is missing: the log goes from ${expected - 1} to ${e.sequence}`);
    }
    if (e.run_id !== record.run_id) return problem('changed', { sequence: e.sequence }, `event ${e.sequence} names run ${e.run_id}, not ${record.run_id}`);
    if (e.hash === null) {
      // Events from before the chain existed: a prefix of the log, never after a chained event.
      if (prev !== null) return problem('changed', { sequence: e.sequence }, `event ${e.sequence} has no hash, after chained events`);
      unchained++;
      continue;
    }
    const hash = eventHash(prev, e);
    if (hash !== e.hash) {
      const moved = foundElsewhere(events, i);
      if (moved !== null) {
        return problem('reordered', { sequence: e.sequence }, `event ${e.sequence} (${e.type}) was written as event ${moved}: the log's order was changed`);
      }
      return problem('changed', { sequence: e.sequence }, `event ${e.sequence} (${e.type}) does not hash to its recorded hash: its type, payload or time was changed`);
    }
    const called = CALL_OUTCOME_EVENT_TYPES.includes(e.type) ? callOf(e) : null;
    if (called) {
      checkedCalls.add(called.id);
      const call = calls.get(called.id);
      if (!call) return problem('missing', { sequence: e.sequence, call_id: called.id }, `call ${called.id}, recorded by event ${e.sequence}, is missing`);
      const recomputed = callRecordHash(call);
      if (recomputed !== called.hash) {
        return problem('changed', { sequence: e.sequence, call_id: call.id }, `call ${call.id} (${call.role}${call.label ? ` ${call.label}` : ''}): its messages, reply, usage or cost differ from what event ${e.sequence} recorded`);
      }
    }
    prev = hash;
  }

  const last = events[events.length - 1];
  if (record.event_seq !== undefined && record.event_seq > (last?.sequence ?? 0)) {
    const from = (last?.sequence ?? 0) + 1;
    return problem('missing', { sequence: from }, `events ${from}..${record.event_seq} are missing: the run handed out ${record.event_seq} sequences`);
  }
  if (prev !== null && record.head_hash !== prev) {
    const from = last.sequence + 1;
    return problem(
      'missing',
      { sequence: from },
      record.head_hash === null ? `the run's head hash is gone` : `the run's head hash is not event ${last.sequence}'s: the events after ${last.sequence} are missing`,
    );
  }

  // A call no event records yet (in flight, or landed after the run ended) is not in the record yet: counted, not checked.
  const unrecorded = record.calls.filter((c) => !checkedCalls.has(c.id)).length;

  const s = record.signature;
  let signature: Extract<RecordVerdict, { intact: true }>['signature'] = { status: 'absent', key: null, sequence: null };
  if (s) {
    const signed = events.find((e) => e.sequence === s.sequence);
    if (!signed || signed.hash !== s.hash) {
      return problem('signature', { sequence: s.sequence }, `the signed hash of event ${s.sequence} is not the chain's: the record was changed after it was signed`);
    }
    if (opts.publicKey && !samePublicKey(opts.publicKey, s.public_key) && !signatureVerifies(record.run_id, s, opts.publicKey)) {
      return problem('signature', { sequence: s.sequence }, `the signature was not made with the trusted public key`);
    }
    if (!signatureVerifies(record.run_id, s, opts.publicKey ?? s.public_key)) {
      return problem('signature', { sequence: s.sequence }, `the Ed25519 signature of event ${s.sequence}'s hash does not verify`);
    }
    signature = { status: 'valid', key: opts.publicKey ? 'trusted' : 'embedded', sequence: s.sequence };
  } else if (opts.publicKey && opts.requireSignature !== false) {
    return problem('signature', {}, `the run carries no signature, and a trusted public key was given`);
  }

  return {
    intact: true,
    events: events.length,
    unchained,
    calls: checkedCalls.size,
    unrecorded_calls: unrecorded,
    head: prev,
    signature,
  };
}

/** Checks an export's artifacts: each one's content must hash to its sha256. Null when all do. */
export function verifyArtifacts(artifacts: readonly RecordArtifact[]): Problem | null {
  for (const a of artifacts) {
    if (sha256Hex(a.content) !== a.sha256) {
      return { intact: false, kind: 'changed', at: { artifact: a.name }, detail: `artifact ${a.name} does not hash to its recorded sha256` };
    }
  }
  return null;
}

/** The export's own hash: sha256 of its canonical JSON without export_sha256. */
export function exportHash(file: Record<string, unknown>): string {
  const { export_sha256: _own, ...rest } = file;
  return sha256Hex(canonicalJson(rest));
}

/**
 * `roundtable verify --file`: an export as read from its file (before any schema strips a field),
 * checked whole: its record (verifyRecord), its artifacts, and its own hash, in that order.
 */
export function verifyExport(raw: unknown, opts: VerifyOptions = {}): RecordVerdict | { error: string } {
  const parsed = RunExport.safeParse(raw);
  if (!parsed.success) return { error: parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ') };
  const verdict = verifyRecord(parsed.data, opts);
  if (!verdict.intact) return verdict;
  const artifact = verifyArtifacts(parsed.data.artifacts);
  if (artifact) return artifact;
  if (exportHash(raw as Record<string, unknown>) !== parsed.data.export_sha256) {
    return { intact: false, kind: 'changed', at: {}, detail: "the export does not hash to its export_sha256: a part outside the chain (run, exported_at …) was changed" };
  }
  return verdict;
}

function callOf(e: RecordedEvent): { id: string; hash: string } | null {
  const id = e.payload.call_id;
  const hash = e.payload.record_hash;
  return typeof id === 'string' && typeof hash === 'string' ? { id, hash } : null;
}

/**
 * The sequence at which event i's stored hash verifies, when not its own: the event was moved
 * (two events swapped their sequences). Its hash chained from the event that was before it then:
 * the one now before that position, or (two neighbours swapped) the one now at it.
 */
function foundElsewhere(events: readonly RecordedEvent[], i: number): number | null {
  const e = events[i];
  for (let j = 0; j < events.length; j++) {
    if (j === i) continue;
    const candidates = new Set<string | null>([j === 0 ? null : events[j - 1].hash, events[j].hash]);
    for (const before of candidates) if (eventHash(before, { ...e, sequence: j + 1 }) === e.hash) return j + 1;
  }
  return null;
}
