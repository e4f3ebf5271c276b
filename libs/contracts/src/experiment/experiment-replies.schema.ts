import { z } from 'zod';
import { ExperimentDecision } from './experiment-decision';
import { Preregistration } from './preregistration.schema';

/** Where a drafted experiment came from: a build's NEEDS_EXPERIMENT (its open question), or an idea's recommended experiment. */
export const ExperimentSource = z.union([
  z.object({ build_run_id: z.string(), question_id: z.string() }).strict(),
  z.object({ idea_id: z.string(), panel_run_id: z.string().nullable() }).strict(),
]);
export type ExperimentSource = z.infer<typeof ExperimentSource>;

/** What the method's command produced, stored once and only with the preregistration's hash. */
export const ExperimentResult = z.object({
  prereg_hash: z.string(),
  commit: z.string(),
  metrics: z.record(z.string(), z.number()),
  exit_code: z.number(),
  duration_s: z.number(),
  output_artifact_id: z.string(),
  output_tail: z.string(),
  run_id: z.string(),
});
export type ExperimentResult = z.infer<typeof ExperimentResult>;

/** One criterion as code read it against the metrics, with the interpreter's reading beside it. */
export const CriterionRead = z.object({
  id: z.string(),
  kind: z.enum(['success', 'failure']),
  expr: z.string(),
  /** Computed by code: the decision is made from these. */
  holds: z.boolean(),
  /** The interpreter's reading, with its evidence; null when it gave none (a fact-only close). */
  reading: z.object({ holds: z.boolean(), evidence: z.string() }).nullable(),
});
export type CriterionRead = z.infer<typeof CriterionRead>;

/**
 * The interpretation as the experiments row keeps it (`interpretation`): the decision is
 * `computed`; an interpreter that decided otherwise is an `override_request`, never applied; a
 * critic that disagrees makes the decision INCONCLUSIVE and raises `open_question`.
 */
export const ExperimentInterpretation = z.object({
  criteria: z.array(CriterionRead),
  computed: ExperimentDecision,
  interpreter_decision: ExperimentDecision.nullable(),
  override_request: z.object({ decision: ExperimentDecision, reason: z.string() }).nullable(),
  summary: z.string().nullable(),
  review: z.object({ agrees: z.boolean(), disagreements: z.array(z.string()), summary: z.string() }).nullable(),
  open_question: z.string().nullable(),
  /** Why the decision is not the computed one, or what was missing (a critic's disagreement, a halt before the review). */
  notes: z.array(z.string()),
  trading_critique: z.record(z.string(), z.unknown()).nullable(),
});
export type ExperimentInterpretation = z.infer<typeof ExperimentInterpretation>;

export const ExperimentStatusName = z.enum(['draft', 'locked', 'decided', 'rejected']);

/** GET /v1/experiments/:id */
export const ExperimentDetail = z.object({
  id: z.string(),
  project: z.string(),
  title: z.string().nullable(),
  status: ExperimentStatusName,
  hypothesis_id: z.string().nullable(),
  repo: z.string().nullable(),
  commit: z.string().nullable(),
  preregistration: Preregistration.nullable(),
  prereg_hash: z.string().nullable(),
  locked_at: z.string().nullable(),
  source: ExperimentSource.nullable(),
  run_id: z.string().nullable(),
  runs: z.array(z.object({ id: z.string(), status: z.string(), stage: z.string(), created_at: z.string() })),
  result: ExperimentResult.nullable(),
  decision: ExperimentDecision.nullable(),
  interpretation: ExperimentInterpretation.nullable(),
  interpreted_at: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: z.string(),
});
export type ExperimentDetail = z.infer<typeof ExperimentDetail>;

/** GET /v1/experiments: newest first. */
export const ExperimentList = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      project: z.string(),
      title: z.string().nullable(),
      status: ExperimentStatusName,
      decision: ExperimentDecision.nullable(),
      run_id: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
});
export type ExperimentList = z.infer<typeof ExperimentList>;

/** POST /v1/experiments/:id/run (202) and POST /v1/ideas/:id/experiment (201): the experiment and the run just queued. */
export const ExperimentStarted = z.object({ experiment_id: z.string(), run_id: z.string() });
export type ExperimentStarted = z.infer<typeof ExperimentStarted>;

/** The 409 of PATCH and PUT /v1/experiments/:id: `field` is the first one the body would change (null when it changes nothing). */
export const ExperimentEditRefused = z.object({ error: z.enum(['experiment_locked', 'experiment_draft']), field: z.string().nullable(), message: z.string() });
export type ExperimentEditRefused = z.infer<typeof ExperimentEditRefused>;
