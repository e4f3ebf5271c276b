import { z } from 'zod';
import { ExperimentDecision } from '../experiment/experiment-decision';
import { ExperimentInterpretation, ExperimentResult } from '../experiment/experiment-replies.schema';
import { Interpretation, InterpretationReview } from '../experiment/interpretation.schema';
import { Preregistration } from '../experiment/preregistration.schema';
import { Severity, Verdict } from '../agent/verdict.schema';
import { Stance } from '../panel/judge-verdict.schema';
import { PanelQualityStatus, PanelWarningKind } from '../panel/panel-quality.schema';
import { JudgeRole, JudgeScore, PanelRecommendation } from '../panel/panel-vocabulary.schema';
import { AcceptanceCriterion } from '../run/acceptance-criterion.schema';
import { BuildRole } from '../run/run-vocabulary';

/**
 * GET /v1/runs/:id/records: what a person reads on a run's page, mapped from the run's snapshot
 * (runs.workflow_state) field for field, in snake_case. Labels (P1, C1, I1f1, T1, R1, S1; V1, D1,
 * RV1, AP1, M1) are the run's own and are what the report and the calls' `label` say; `call_id`
 * is the agent call that wrote the record (GET /v1/runs/:id/calls/:callId). Nothing here is read
 * from the workspace on disk. Oldest first everywhere.
 */

const callId = z.string().nullable().describe('the agent call that wrote it; null when no model did');

export const RecordProblem = z.object({ severity: Severity, description: z.string(), location: z.string().nullable() });

export const ProposalItem = z.object({
  label: z.string(),
  call_id: z.string(),
  round: z.number(),
  revision_of: z.string().nullable().describe('the label of the proposal this one revises'),
  status: z.enum(['proposed', 'criticized', 'superseded', 'accepted', 'rejected']),
  claim: z.string(),
  approach: z.string(),
  assumptions: z.array(z.string()),
  evidence: z.array(z.string()),
  risks: z.array(z.string()),
  tests_required: z.array(z.string()),
  responses_to_criticism: z
    .array(z.object({ problem: z.string(), action: z.enum(['fixed', 'rejected', 'deferred']), reason: z.string() }))
    .describe("the reviser's answer to each criticism of the proposal it revises (empty on a first proposal)"),
  confidence: z.number(),
});

export const CritiqueItem = z.object({
  label: z.string(),
  call_id: z.string(),
  target_label: z.string().describe('the proposal criticized'),
  verdict: Verdict,
  problems: z.array(RecordProblem),
  counterarguments: z.array(z.string()),
  tests_required: z.array(z.string()),
  confidence: z.number(),
});

export const ReviewItem = z.object({
  label: z.string(),
  call_id: z.string(),
  target_label: z.string().describe('the implementation reviewed'),
  verdict: Verdict,
  requirement_checks: z.array(z.object({ requirement: z.string(), satisfied: z.boolean(), evidence: z.string() })),
  problems: z.array(RecordProblem),
  confidence: z.number(),
});

const DiffStat = z.array(z.object({ path: z.string(), added: z.number().nullable(), deleted: z.number().nullable() }).describe('null counts: a binary file'));

export const ImplementationItem = z.object({
  label: z.string(),
  call_id: z.string(),
  proposal_label: z.string().nullable().describe('null: a solo run, whose engineer works from the objective and requirements (pipeline: solo)'),
  fix_round: z.number(),
  status: z.enum(['pending', 'applied', 'rejected']),
  apply_error: z.string().nullable(),
  files: z.array(z.object({ path: z.string(), bytes: z.number().describe('UTF-8 bytes of its content') })).describe('each file written, whole (GET /v1/runs/:id/files?path= gives its content)'),
  deleted: z.array(z.string()),
  test_command: z.string(),
  notes: z.string(),
  assumptions: z.array(z.string()),
  known_gaps: z.array(z.string()),
  commit: z
    .object({
      source: z.enum(['worktree', 'copy', 'empty']),
      branch: z.string(),
      base_commit: z.string(),
      commit: z.string(),
      round_diffstat: DiffStat.describe("this round's own changes"),
      diffstat: DiffStat.describe('every round so far against base_commit'),
      diff_truncated: z.boolean(),
    })
    .nullable()
    .describe('the commit its round made on the run branch; null until applied, or in a workspace without git'),
});

export const TestRunItem = z.object({
  label: z.string(),
  implementation_label: z.string(),
  command: z.string(),
  exit_code: z.number(),
  passed: z.number(),
  failed: z.number(),
  errors: z.number(),
  duration_s: z.number(),
  timed_out: z.boolean(),
  output_tail: z.string().describe("the output's last 4 KiB"),
});

export const DisagreementItem = z.object({
  topic: z.string(),
  positions: z.array(z.object({ agent_role: z.string(), position: z.string() })),
  resolved: z.boolean(),
  resolution: z.string().nullable(),
});

export const SynthesisItem = z.object({
  label: z.string(),
  call_id: callId,
  partial: z.boolean(),
  what_was_built: z.string().nullable(),
  test_summary: z.string().nullable(),
  remaining_risks: z.array(z.string()),
  recommended_next_experiment: z.string().nullable(),
  overall_verdict: Verdict.nullable(),
  confidence: z.number().nullable(),
}).describe('null fields (and call_id null): the fact-only close, written without a model');

export const BuildRecords = z.object({
  workflow: z.literal('build'),
  acceptance_criteria: z.array(AcceptanceCriterion).nullable().describe('null until a critique accepts and the criteria are locked'),
  proposals: z.array(ProposalItem),
  critiques: z.array(CritiqueItem).describe("the critic's verdicts on proposals"),
  implementations: z.array(ImplementationItem),
  test_runs: z.array(TestRunItem),
  reviews: z.array(ReviewItem).describe("the validator's verdicts on implementations; the last is the one that counts"),
  synthesis: SynthesisItem.nullable(),
  disagreements: z.array(DisagreementItem).describe("the synthesis' disagreements, kept as the synthesizer wrote them (empty before it)"),
  open_questions: z.array(z.object({ role: BuildRole, question: z.string() })),
});

const ScoreMap = z.partialRecord(JudgeRole, JudgeScore);

export const JudgeVerdictItem = z.object({
  label: z.string(),
  call_id: z.string(),
  attempt: z.number().describe('0: the first roast; 1, 2: a retry of a weak judge'),
  score: z.number(),
  stance: Stance,
  top_concerns: z.array(z.string()),
  evidence: z.array(z.string()),
  what_would_change_my_mind: z.string(),
  confidence: z.number(),
});

export const JudgeCard = z.object({
  judge: JudgeRole,
  score: z.number().nullable().describe('the current score: after the re-vote and an appeal when there were; null before its verdict'),
  verdict: JudgeVerdictItem.nullable().describe("the judge's latest verdict"),
  earlier_verdicts: z.array(JudgeVerdictItem).describe('verdicts a retry replaced'),
  weak: z.boolean().describe('the quality gate found its verdict weak (generic evidence, repeated concerns)'),
  generic_rate: z.number().nullable().describe('share of its evidence items that are stock phrases'),
  duplicate_concerns: z.array(z.tuple([z.string(), z.string()])).describe('near-identical concerns inside its verdict'),
});

export const DebateTurnItem = z.object({
  label: z.string(),
  call_id: z.string(),
  speaker: JudgeRole,
  round: z.number(),
  message: z.string(),
  responds_to: z.array(z.string()),
});

export const RescoreItem = z.object({
  label: z.string(),
  call_id: z.string(),
  judge: JudgeRole,
  previous: z.number(),
  requested: z.number().describe('the score the judge asked for'),
  score: z.number().describe('the score that counts: requested, capped at ±3 from previous'),
  delta: z.number().describe('score - previous'),
  capped: z.boolean(),
  changed: z.boolean(),
  change_reason: z.string().nullable(),
  confidence: z.number(),
});

export const ModeratorItem = z.object({
  label: z.string(),
  call_id: callId,
  partial: z.boolean(),
  overall_recommendation: PanelRecommendation.nullable(),
  confidence: z.number().nullable(),
  top_strengths: z.array(z.string()),
  top_risks: z.array(z.string()),
  top_problems: z.array(z.string()),
  biggest_disagreement: z.string().nullable(),
  recommended_experiment: z.string().nullable(),
}).describe('null fields (and call_id null): the fact-only close, written without a model');

export const PanelRecords = z.object({
  workflow: z.literal('panel'),
  idea: z.object({ title: z.string(), description: z.string(), target_user: z.string(), evidence: z.array(z.string()) }),
  judges: z.array(JudgeCard).describe('one per judge, in the fixed speaker order'),
  quality: z
    .object({ status: PanelQualityStatus, max_jaccard: z.number(), weak_judges: z.array(JudgeRole), reasons: z.array(z.string()) })
    .nullable()
    .describe('the quality gate after the last roast attempt; null before it'),
  low_confidence: z.boolean(),
  warnings: z.array(z.object({ kind: PanelWarningKind, detail: z.string(), judges: z.array(JudgeRole) })),
  debate: z.array(DebateTurnItem).describe('the turns in speaking order'),
  revote: z
    .object({ baseline: ScoreMap.describe('the scores when the re-vote started'), rescores: z.array(RescoreItem) })
    .nullable()
    .describe('null before the re-vote (and for a panel without one)'),
  moderator: ModeratorItem.nullable(),
  appeal: z
    .object({
      status: z.enum(['running', 'completed']),
      evidence: z.array(z.string()),
      judges: z.array(JudgeRole),
      previous: ScoreMap.describe('the scores the appeal started from'),
      rescores: z.array(RescoreItem),
    })
    .nullable(),
});

/**
 * An experiment run's records (issue 24): the preregistration it holds to (or the draft waiting at
 * its gate), what the method measured, the reading and the review as they were written, and the
 * decision code made with everything said beside it.
 */
export const ExperimentRecords = z.object({
  workflow: z.literal('experiment'),
  experiment_id: z.string(),
  preregistration: Preregistration.nullable(),
  draft: z.object({ label: z.string(), body: Preregistration }).nullable(),
  result: ExperimentResult.nullable(),
  interpretation: z.object({ label: z.string(), body: Interpretation }).nullable(),
  review: z.object({ label: z.string(), body: InterpretationReview }).nullable(),
  outcome: ExperimentInterpretation.nullable(),
  decision: ExperimentDecision.nullable(),
});
export type ExperimentRecords = z.infer<typeof ExperimentRecords>;

export const RunRecords = z.discriminatedUnion('workflow', [BuildRecords, PanelRecords, ExperimentRecords]);

export type BuildRecords = z.infer<typeof BuildRecords>;
export type PanelRecords = z.infer<typeof PanelRecords>;
export type ProposalItem = z.infer<typeof ProposalItem>;
export type ImplementationItem = z.infer<typeof ImplementationItem>;
export type RescoreItem = z.infer<typeof RescoreItem>;
export type JudgeVerdictItem = z.infer<typeof JudgeVerdictItem>;
export type RecordProblem = z.infer<typeof RecordProblem>;
export type CritiqueItem = z.infer<typeof CritiqueItem>;
export type ReviewItem = z.infer<typeof ReviewItem>;
export type TestRunItem = z.infer<typeof TestRunItem>;
export type DisagreementItem = z.infer<typeof DisagreementItem>;
export type RunRecords = z.infer<typeof RunRecords>;
