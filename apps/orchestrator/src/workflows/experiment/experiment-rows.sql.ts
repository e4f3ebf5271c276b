import { statement } from '@roundtable/persistence';
import type { ExperimentInterpretation, ExperimentResult, Preregistration } from '@roundtable/contracts';
import { jsonParam } from '../../sql/step-writes.sql';

/**
 * The experiments row, as an experiment run's steps change it (issue 24). Each is guarded by the
 * state it moves from, so a replayed step changes nothing twice, and a result is stored only
 * when the row still carries the hash it was run with and has no result yet.
 */

/** A person approved the draft: it is the preregistration now, with its hash and lock time. */
export const LOCK_DRAFTED_EXPERIMENT = statement<never>()({
  text: `UPDATE experiments SET prereg = $2::jsonb, prereg_hash = $3, locked_at = now(), status = 'locked' WHERE id = $1 AND status = 'draft'`,
  params: (id: string, prereg: Preregistration, hash: string): unknown[] => [id, jsonParam(prereg), hash],
});

export const REJECT_DRAFTED_EXPERIMENT = statement<never>()({
  text: `UPDATE experiments SET status = 'rejected' WHERE id = $1 AND status = 'draft'`,
  params: (id: string): unknown[] => [id],
});

export const STORE_EXPERIMENT_RESULT = statement<never>()({
  text: `UPDATE experiments SET result = $2::jsonb, result_hash_check = true WHERE id = $1 AND result IS NULL AND prereg_hash = $3`,
  params: (id: string, result: ExperimentResult): unknown[] => [id, jsonParam(result), result.prereg_hash],
});

export const DECIDE_EXPERIMENT = statement<never>()({
  text: `UPDATE experiments SET decision = $2, interpretation = $3::jsonb, interpreted_at = now(), status = 'decided' WHERE id = $1 AND status IN ('locked', 'decided')`,
  params: (id: string, decision: string, interpretation: ExperimentInterpretation): unknown[] => [id, decision, jsonParam(interpretation)],
});

/**
 * The decision of an idea's drafted experiment, logged to the idea's evidence ledger as an
 * experiment_result entry (E<n>, numbered from ideas.evidence_seq under the idea's row lock, as
 * the api numbers a person's entries).
 */
export const LOG_IDEA_EVIDENCE = statement<never>()({
  text: `WITH seq AS (UPDATE ideas SET evidence_seq = evidence_seq + 1, updated_at = now() WHERE id = $1 RETURNING evidence_seq)
         INSERT INTO evidence_entries (idea_id, entry_id, seq, claim, source, kind, date, supersedes, logged_by)
         SELECT $1, 'E' || seq.evidence_seq, seq.evidence_seq, $2, $3, 'experiment_result', current_date, NULL, $4 FROM seq`,
  params: (ideaId: string, claim: string, source: string, experimentId: string): unknown[] => [ideaId, claim, source, `experiment ${experimentId}`],
});
