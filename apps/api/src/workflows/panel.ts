import { PanelRole, PanelStage } from '@roundtable/contracts';
import { currentScores, WORKFLOWS } from '@roundtable/workflow';
import type { ApiWorkflow } from './api-workflow';
import { panelRecordsView } from './panel-records';
import { panelStateOfRun, panelSummaryView } from './panel-summary';

/** The panel as the api reads it: judges' records, a `panel` block on the detail, an appeal, a resume where it stopped; no files. */
export const panelApiWorkflow: ApiWorkflow = {
  records: panelRecordsView,
  detail: (run) => ({ panel: panelSummaryView(run) }),
  report: ({ run, decisions, audit }) =>
    WORKFLOWS.panel.report({
      state: panelStateOfRun(run),
      decisions: decisions.map((d) => ({ from: d.fromStage as PanelStage, to: d.toStage as PanelStage, reason: d.reason, refs: d.refs })),
      audit,
    }),
  noFiles: 'a panel changes no files',
  noFork: null,
  module: WORKFLOWS.panel,
  judgesIdeas: true,
  verdictOf: (run) => {
    const state = panelStateOfRun(run);
    const m = state.moderator;
    return m?.body ? { synthesis: m.body, partial: m.partial, scores: currentScores(state) } : null;
  },
  appealable: true,
  callFilters: { role: PanelRole.options, stage: PanelStage.options },
};
