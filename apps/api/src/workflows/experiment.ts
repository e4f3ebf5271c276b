import { ExperimentRole, ExperimentStage, type ExperimentRecords } from '@roundtable/contracts';
import type { RunEntity } from '@roundtable/persistence';
import { emptyUsage, experimentDecisionOf, experimentStateOf, WORKFLOWS, type ExperimentDecisionRow } from '@roundtable/workflow';
import type { ApiWorkflow } from './api-workflow';

const stateOfRun = (run: RunEntity) => experimentStateOf(run, emptyUsage());

/** GET /v1/runs/:id/records for an experiment run: what it holds to, measured, read and decided. */
function experimentRecords(run: RunEntity): ExperimentRecords {
  const s = stateOfRun(run);
  const labelled = <B>(r: { label: string; body: B } | null) => (r ? { label: r.label, body: r.body } : null);
  return {
    workflow: 'experiment',
    experiment_id: s.config.experiment_id,
    preregistration: s.preregistration,
    draft: labelled(s.draft),
    result: s.result,
    interpretation: labelled(s.interpretation),
    review: labelled(s.review),
    outcome: s.outcome,
    decision: experimentDecisionOf(s),
  };
}

/** An experiment run as the api reads it (issue 24): its records, its report, a resume where it stopped; no files, no appeal. */
export const experimentApiWorkflow: ApiWorkflow = {
  records: experimentRecords,
  detail: () => ({}),
  report: ({ run, decisions, audit }) =>
    WORKFLOWS.experiment.report({
      state: stateOfRun(run),
      decisions: decisions.map((d): ExperimentDecisionRow => ({ from: d.fromStage as ExperimentStage, to: d.toStage as ExperimentStage, reason: d.reason, refs: d.refs })),
      audit,
    }),
  noFiles: "an experiment changes no files: its method runs in a worktree at the pinned commit, and what it measured is on GET /v1/experiments/:id",
  // Its result is stored once, with the preregistration's hash: run again from a stage, it would be a second look.
  noFork: 'an experiment is run once and its result stored once; a changed copy is a new experiment (POST /v1/experiments), not a fork of its run',
  module: WORKFLOWS.experiment,
  judgesIdeas: false,
  verdictOf: () => null,
  appealable: false,
  callFilters: { role: ExperimentRole.options, stage: ExperimentStage.options },
};
