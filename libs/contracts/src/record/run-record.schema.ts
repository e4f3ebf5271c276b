import { z } from 'zod';
import { RunSignature } from './record-signature';

/** A stored event with its chain hash (null: written before the chain existed). */
export const RecordedEvent = z.object({
  run_id: z.string(),
  sequence: z.number().int().positive(),
  type: z.string(),
  payload: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  hash: z.string().nullable(),
});
export type RecordedEvent = z.infer<typeof RecordedEvent>;

/** A stored agent call: the fields its record hash covers, what names it, and the record hash on its row. */
export const RecordedCall = z.object({
  id: z.string(),
  role: z.string(),
  stage: z.string(),
  label: z.string().nullable(),
  provider: z.string(),
  model: z.string(),
  status: z.string(),
  messages: z.unknown(),
  response_text: z.string().nullable(),
  parsed: z.unknown(),
  valid: z.boolean().nullable(),
  error: z.string().nullable(),
  error_code: z.string().nullable(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  /** As Postgres prints the numeric, e.g. "0.012300". */
  cost_usd: z.string().nullable(),
});
export type RecordedCall = z.infer<typeof RecordedCall>;

/** Everything `verify` reads of a run: its events, its calls, and the run row's head and signature. */
export const RunRecord = z.object({
  run_id: z.string(),
  /** runs.head_hash: the last event's hash as the writers left it. */
  head_hash: z.string().nullable(),
  /** runs.event_seq: the last sequence the writers handed out (absent in a hand-made record). */
  event_seq: z.number().int().optional(),
  signature: RunSignature.nullable(),
  events: z.array(RecordedEvent),
  calls: z.array(RecordedCall),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** A file of the run served beside its record (the report …), with the sha256 of its content. */
export const RecordArtifact = z.object({
  name: z.string(),
  media_type: z.string(),
  sha256: z.string(),
  content: z.string(),
});
export type RecordArtifact = z.infer<typeof RecordArtifact>;

export const RUN_EXPORT_FORMAT = 'roundtable-run-export/1';

/** GET /v1/runs/:id/export, `roundtable export`: one file that `roundtable verify --file` checks offline. */
export const RunExport = RunRecord.extend({
  format: z.literal(RUN_EXPORT_FORMAT),
  exported_at: z.string(),
  /** The run as GET /v1/runs/:id summarises it (informative: the chain covers the events and calls, not this). */
  run: z.record(z.string(), z.unknown()),
  artifacts: z.array(RecordArtifact),
  /**
   * sha256 of the file's canonical JSON less this field (exportHash): a byte changed anywhere,
   * the parts outside the chain (run, exported_at) included, fails verify. Integrity, not
   * authenticity: who changed the record and recomputed is caught by the signature.
   */
  export_sha256: z.string(),
});
export type RunExport = z.infer<typeof RunExport>;

export const RecordProblemKind = z.enum(['changed', 'missing', 'reordered', 'signature']);
export type RecordProblemKind = z.infer<typeof RecordProblemKind>;

/** GET /v1/runs/:id/verify: intact, or the first thing that does not match and how. */
export const RecordVerdict = z.discriminatedUnion('intact', [
  z.object({
    intact: z.literal(true),
    /** Events checked, and those of them written before the chain existed (no hash: not checked, not tampering). */
    events: z.number().int(),
    unchained: z.number().int(),
    /** Calls whose record hash was checked, and calls with no recording event yet (in flight, or landed after the run ended). */
    calls: z.number().int(),
    unrecorded_calls: z.number().int(),
    /** The head hash: the last event's. Null: nothing chained. */
    head: z.string().nullable(),
    signature: z.object({
      status: z.enum(['valid', 'absent']),
      /** Which key it was checked with: the one the caller trusts, or the one the signature carries. */
      key: z.enum(['trusted', 'embedded']).nullable(),
      /** The sequence it vouches for; later events (a resumed run's) are chained but not yet signed. */
      sequence: z.number().int().nullable(),
    }),
  }),
  z.object({
    intact: z.literal(false),
    kind: RecordProblemKind,
    at: z.object({ sequence: z.number().int().optional(), call_id: z.string().optional(), artifact: z.string().optional() }),
    detail: z.string(),
  }),
]);
export type RecordVerdict = z.infer<typeof RecordVerdict>;
