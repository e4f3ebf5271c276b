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
  text: `UPDATE experiments SET decision = $2, interpretation = $3::jsonb, interpreted_at = now(), status = 'decided' WHERE id = $1 AND status = 'locked' OR (id = $1 AND status = 'decided')`,
  params: (id: string, decision: string, interpretation: ExperimentInterpretation): unknown[] => [id, decision, jsonParam(interpretation)],
});
