import { BuildRole, Stage } from '@roundtable/contracts';
import { solvedChecks, WORKFLOWS } from '@roundtable/workflow';
import type { ApiWorkflow } from './api-workflow';
import { buildRecordsView, buildStateOfRun } from './build-records';

/** The build as the api reads it: records, report, a diff and files, and a resume from where it stopped. */
export const buildApiWorkflow: ApiWorkflow = {
  records: buildRecordsView,
  // "Solved" as four checks over the run's records (libs/workflow build/solved.ts).
  detail: (run) => ({ solved: solvedChecks(buildStateOfRun(run)) }),
  // The report shows the run as decide() last saw it: the snapshot its last step left on the
  // row (the audit's usage is the calls' own). A run from before snapshots shows its row's
  // columns and no records until its next step writes one.
  report: ({ run, decisions, audit }) =>
    WORKFLOWS.build.report({
      state: buildStateOfRun(run),
      decisions: decisions.map((d) => ({ from: d.fromStage as Stage, to: d.toStage as Stage, reason: d.reason, refs: d.refs })),
      audit,
      handedOffFrom: run.handedOffFrom,
    }),
  noFiles: null,
  noFork: null,
  module: WORKFLOWS.build,
  judgesIdeas: false,
  // A build's verdict is on its own work: nothing to hand on.
  verdictOf: () => null,
  appealable: false,
  callFilters: { role: BuildRole.options, stage: Stage.options },
};
