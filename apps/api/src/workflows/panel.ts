import { PanelRole, PanelStage } from '@roundtable/contracts';
import { renderPanelReport } from '@roundtable/workflow';
import type { ApiWorkflow } from './api-workflow';
import { panelRecordsView } from './panel-records';
import { panelStateOfRun, panelSummaryView } from './panel-summary';

/** The panel as the api reads it: judges' records, a `panel` block on the detail, an appeal; no files, no resume. */
export const panelApiWorkflow: ApiWorkflow = {
  records: panelRecordsView,
  detail: (run) => ({ panel: panelSummaryView(run) }),
  report: ({ run, decisions, audit }) =>
    renderPanelReport({
      state: panelStateOfRun(run),
      decisions: decisions.map((d) => ({ from: d.fromStage as PanelStage, to: d.toStage as PanelStage, reason: d.reason, refs: d.refs })),
      audit,
    }),
  noFiles: 'a panel changes no files',
  // The panel has no resume: its stop is final, and its one second look is an appeal.
  resumeRefusal: (runId) => `run ${runId} is a panel run; a panel cannot be resumed: appeal it (POST /v1/runs/${runId}/appeal) or start a new run`,
  appealable: true,
  callFilters: { role: PanelRole.options, stage: PanelStage.options },
};
